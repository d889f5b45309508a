import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from './config';

/** SDK clients are built once per execution environment and reused across invocations. */
let documentClient: DynamoDBDocumentClient | undefined;

export const dynamo = (): DynamoDBDocumentClient => {
  if (!documentClient) {
    const { region, dynamodbEndpoint } = config();
    const client = new DynamoDBClient({ region, ...(dynamodbEndpoint && { endpoint: dynamodbEndpoint }) });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return documentClient;
};

export const tableName = (): string => config().tableName;
