import { defineOperation, type Operation, type OperationContract, type OperationRequest, type OperationResult } from '../api/operation';
import type { CompanyRecord } from './repository';

/**
 * An operation under /v1/companies/{companyId}: the runner's reach step has resolved the company
 * (live, within reach) before it runs, and hands it over as `company`.
 */
export const defineCompanyOperation = <C extends OperationContract>(
  contract: C,
  run: (request: OperationRequest<C> & { company: CompanyRecord }) => Promise<OperationResult>,
): Operation<C> =>
  defineOperation(contract, (request) => {
    const company = request.owner as CompanyRecord | undefined;
    if (!company) throw new Error(`${request.operationId}: no company resolved; its path must name {companyId}`);
    return run(Object.assign(Object.create(request) as OperationRequest<C>, { company }));
  });
