import { inject } from 'vitest';
// The import kinds as the service composes them (it provides what holds ledger items from
// deletion, shared/ledger/holds.ts): files that run the ledger's services directly get them too.
import '../../shared/composition/import-kinds';
import { awaitStack } from './stack';

// Each file of the stack project starts once the run's local stack is up (test/support/global-setup.ts).
await awaitStack(inject('stackReadyFile'));
