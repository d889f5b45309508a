import { httpHandler } from '../../shared/composition/http-handler';
import { mcpOperations } from './operations';

export const handler = httpHandler('mcp', mcpOperations);
