import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config';

/** SDK clients are built once per execution environment and reused across invocations. */
let documentClient: DynamoDBDocumentClient | undefined;
let builtFor: string | undefined;

export const dynamo = (): DynamoDBDocumentClient => {
  const { region, dynamodbEndpoint } = config();
  // Rebuilt only when the configuration changed (tools and tests that switch stacks).
  if (!documentClient || builtFor !== `${region} ${dynamodbEndpoint}`) {
    builtFor = `${region} ${dynamodbEndpoint}`;
    const client = new DynamoDBClient({ region, ...(dynamodbEndpoint && { endpoint: dynamodbEndpoint }) });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
      // Numbers come back as exact text (NumberValue): amounts never pass through JS floats.
      unmarshallOptions: { wrapNumbers: true },
    });
  }
  return documentClient;
};

export const tableName = (): string => config().tableName;
