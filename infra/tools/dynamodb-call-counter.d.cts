/** One DynamoDB call's name: `Operation table prefix` (infra/tools/dynamodb-call-counter.cjs). */
export declare function describeCall(operation: string, body: string): string;
