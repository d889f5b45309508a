import { defineOperation, type Operation, type OperationContract, type OperationRequest, type OperationResult } from '../api/operation';
import type { CompanyRecord } from '../companies/repository';
import type { DeclarationRecord, DocumentRecord } from './repository';

/**
 * What {documentId} resolves to (shared/composition/owners.ts): the document, or on the completion
 * route its pending declaration, with the company it belongs to (live, within reach).
 */
export interface DocumentOwner {
  company: CompanyRecord;
  document?: DocumentRecord;
  declaration?: DeclarationRecord;
}

/** An operation under /v1/documents/{documentId}: the runner's reach step has resolved the document. */
export const defineDocumentOperation = <C extends OperationContract>(
  contract: C,
  run: (request: OperationRequest<C> & DocumentOwner) => Promise<OperationResult>,
): Operation<C> =>
  defineOperation(contract, (request) => {
    const owner = request.owner as DocumentOwner | undefined;
    if (!owner) throw new Error(`${request.operationId}: no document resolved; its path must name {documentId}`);
    return run(Object.assign(Object.create(request) as OperationRequest<C>, owner));
  });
