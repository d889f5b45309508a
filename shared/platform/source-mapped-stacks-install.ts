// Evaluated first in every Lambda bundle (esbuild `inject`, infra/stacks/bundled-assets.ts).
import { installSourceMappedStacks } from './source-mapped-stacks';

installSourceMappedStacks();
