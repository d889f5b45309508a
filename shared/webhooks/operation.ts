import { defineOperation, type Operation, type OperationContract, type OperationRequest, type OperationResult } from '../api/operation';
import type { DeliveryRecord, SubscriptionRecord } from './repository';

/** What {deliveryId} resolves to (shared/composition/owners.ts): the delivery and its subscription, within reach. */
export interface DeliveryOwner {
  delivery: DeliveryRecord;
  subscription: SubscriptionRecord;
}

/** A webhook operation (system clients only: `systemOnly` on its routes, which the runner enforces). */
export const defineWebhookOperation = <C extends OperationContract>(contract: C, run: (request: OperationRequest<C>) => Promise<OperationResult>): Operation<C> =>
  defineOperation(contract, run);

/** An operation under /v1/webhooks/subscriptions/{subscriptionId}: the reach step resolved the subscription. */
export const defineSubscriptionOperation = <C extends OperationContract>(
  contract: C,
  run: (request: OperationRequest<C> & { subscription: SubscriptionRecord }) => Promise<OperationResult>,
): Operation<C> =>
  defineWebhookOperation(contract, (request) => run(Object.assign(Object.create(request) as OperationRequest<C>, { subscription: ownerOf<SubscriptionRecord>(request) })));

/** An operation under /v1/webhooks/deliveries/{deliveryId}. */
export const defineDeliveryOperation = <C extends OperationContract>(contract: C, run: (request: OperationRequest<C> & DeliveryOwner) => Promise<OperationResult>): Operation<C> =>
  defineWebhookOperation(contract, (request) => run(Object.assign(Object.create(request) as OperationRequest<C>, ownerOf<DeliveryOwner>(request))));

const ownerOf = <T>(request: OperationRequest<OperationContract>): T => {
  if (!request.owner) throw new Error(`${request.operationId}: no owner resolved; its path must name it`);
  return request.owner as T;
};
