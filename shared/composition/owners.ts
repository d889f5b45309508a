import { organizationRepository } from '../identity/organization-repository';
import { accessRepository, type AssignmentRecord, type PolicyRecord } from '../identity/access-repository';
import { personWithinReach, reachablePolicy } from '../access/service';
import type { CompanyRecord } from '../companies/repository';
import { reachable } from '../companies/reachable';
import { documentRepository, type DeclarationRecord, type DocumentRecord } from '../documents/repository';
import type { ReachingPrincipal } from '../identity/reach';
import { jobRepository, type JobRecord } from '../jobs/repository';
import type { OwnerResolvers } from '../api/runner';
import { deliveryRepository, subscriptionRepository, type DeliveryRecord, type SubscriptionRecord } from '../webhooks/repository';

/**
 * What {documentId} resolves to: the document, or on the completion route its pending
 * declaration, with the company it belongs to (live, within reach).
 */
export interface DocumentOwner {
  company: CompanyRecord;
  document?: DocumentRecord;
  declaration?: DeclarationRecord;
}

/** What {deliveryId} resolves to: the delivery and its subscription, within reach. */
export interface DeliveryOwner {
  delivery: DeliveryRecord;
  subscription: SubscriptionRecord;
}

/** A subscription is visible within the reach of its organization, while that organization is not deleted. */
const reachableSubscription = async (id: string, principal: ReachingPrincipal): Promise<SubscriptionRecord | undefined> => {
  const subscription = reachable.placed(principal, await subscriptionRepository.get(id));
  return subscription && (await organizationRepository.get(subscription.organizationId))?.status === 'active' ? subscription : undefined;
};

/**
 * What each owned path parameter names and how it is found, for the runner's reach step. Adding an
 * owned resource (documents, subscriptions, policies) is one entry here; each finds its record
 * through `reachable` (shared/companies/reachable.ts), the one entry to the reach decision. Each resolver's answer types the `owner` of the operations
 * whose path names the parameter (shared/composition/operations.ts); test/integration/reach.test.ts
 * walks every entry.
 */
export const owners = {
  companyId: {
    noun: 'company',
    resolve: (id, principal, route): Promise<CompanyRecord | undefined> => reachable.company(principal, id, route.scope, { deleted: route.ownerMayBeDeleted }),
  },
  /** A job is visible where its company is: within reach, company not deleted. */
  jobId: {
    noun: 'job',
    resolve: async (id, principal, route): Promise<JobRecord | undefined> => {
      const job = await jobRepository.get(id);
      return job && (await reachable.company(principal, job.companyId, route.scope)) ? job : undefined;
    },
  },
  /**
   * A document is visible where its company is (within reach, company not deleted). A soft-deleted
   * document resolves only on routes marked ownerMayBeDeleted (delete, restore); a pending upload
   * declaration only on routes marked ownerMayBePending (completion), so that an out-of-reach
   * completion answers 404 like everything else.
   */
  documentId: {
    noun: 'document',
    resolve: async (id, principal, route): Promise<DocumentOwner | undefined> => {
      let document = await documentRepository.get(id);
      const declaration = !document && route.ownerMayBePending ? await documentRepository.getDeclaration(id) : undefined;
      // The automatic completion may have turned the declaration into the document between the two reads.
      if (!document && route.ownerMayBePending && !declaration) document = await documentRepository.get(id);
      if (document?.deletedAt && !route.ownerMayBeDeleted) return undefined;
      const companyId = document?.companyId ?? declaration?.companyId;
      const company = companyId ? await reachable.company(principal, companyId, route.scope) : undefined;
      if (!company) return undefined;
      return { company, ...(document && { document }), ...(declaration && { declaration }) };
    },
  },
  /** A person is within a system client's reach when one of their organizations is (only system clients call these routes). */
  userId: {
    noun: 'user',
    resolve: (id, principal) => personWithinReach(principal, id),
  },
  /** A policy (and an assignment, which sits with its policy) is within reach where its owning organization is; a deleted organization's policies are not found. */
  policyId: {
    noun: 'policy',
    resolve: (id, principal): Promise<PolicyRecord | undefined> => reachablePolicy(principal, id),
  },
  assignmentId: {
    noun: 'assignment',
    resolve: async (id, principal): Promise<AssignmentRecord | undefined> => reachable.placed(principal, await accessRepository.assignment(id)),
  },
  subscriptionId: {
    noun: 'subscription',
    resolve: (id, principal) => reachableSubscription(id, principal),
  },
  /** A delivery is visible where its subscription is. */
  deliveryId: {
    noun: 'delivery',
    resolve: async (id, principal): Promise<DeliveryOwner | undefined> => {
      const delivery = await deliveryRepository.get(id);
      const subscription = delivery ? await reachableSubscription(delivery.subscriptionId, principal) : undefined;
      return delivery && subscription ? { delivery, subscription } : undefined;
    },
  },
} satisfies OwnerResolvers;

/** The owned path parameters ({companyId}, {jobId}, ...). */
export type OwnedParameter = keyof typeof owners;
export const ownedParameters = Object.keys(owners) as OwnedParameter[];
