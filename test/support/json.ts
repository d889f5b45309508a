/**
 * A JSON value that a test reads without restating its type: a response body (api() validates
 * each against the OpenAPI document), a synthesized CloudFormation template, a CLI's output.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shape is checked where the value is made; tests read it freely
export type Json = any;
