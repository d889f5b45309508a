import { inject } from 'vitest';
import { awaitStack } from './stack';

// Each file of the stack project starts once the run's local stack is up (test/support/global-setup.ts).
await awaitStack(inject('stackReadyFile'));
