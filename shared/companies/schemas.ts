import { lazySchema } from '../platform/lazy-schema';
import { limits, pageOf, PageQuerySchema, text, textOut, TimestampSchema, UuidSchema } from '../platform/schemas';
import * as z from '../platform/zod';
import { isValidOrganizationNumber } from './organization-number';
import { accountingSystems, companyStatuses, vatFrequencies } from './values';

// The values the schemas enumerate live in ./values (no zod): repositories import them from there.
export * from './values';

const displayName = /* @__PURE__ */ lazySchema(() => text({ max: limits.name }).openapi({ description: 'The company name shown everywhere (read back as `name`)', example: 'Nordlys Regnskap AS' }));

const organizationNumber = /* @__PURE__ */ lazySchema(() => z
  .string()
  .max(9)
  .refine(isValidOrganizationNumber, 'must be a valid Norwegian organization number (9 digits, modulus 11)')
  .openapi({ pattern: '^\\d{9}$', description: 'Norwegian organization number (9 digits with a modulus-11 check digit)', example: '923609016' }));

const vatFrequency = /* @__PURE__ */ lazySchema(() => z.enum(vatFrequencies).openapi({
  description:
    'VAT filing frequency: `bimonthly` (six two-month terms, Jan-Feb to Nov-Dec; the default) or `annual` (one term, for companies registered for annual filing). Drives GET .../vat/terms.',
  example: 'bimonthly',
}));

export const CompanySchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema.openapi({ description: 'The company (UUID)' }),
    name: textOut(limits.name).openapi({ description: 'Display name of the company (requests call it displayName)' }),
    status: z.enum(companyStatuses).openapi({ description: 'active, disabled or deleted' }),
    organizationId: UuidSchema.openapi({ description: 'The organization the company belongs to' }),
    organizationNumber: textOut(9).nullable().openapi({ description: 'Norwegian organization number (9 digits), or null' }),
    accountingSystem: z.enum(accountingSystems).openapi({ description: 'The system that owns the books; only Api companies take imports through this API' }),
    vatFrequency,
    createdAt: TimestampSchema,
    updatedAt: TimestampSchema,
  })
  .openapi('Company', { description: 'A client company of the accounting firm' }));

export const CompanyPageSchema = /* @__PURE__ */ lazySchema(() => pageOf(CompanySchema, 'CompanyPage'));

export const CreateCompanySchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    displayName,
    accountingSystem: z.enum(accountingSystems).openapi({ description: 'The system that owns the books: Api (this API takes imports), Tripletex, Fiken, PowerOffice, Visma or Xledger' }),
    organizationNumber: organizationNumber.optional(),
    vatFrequency: vatFrequency.optional().openapi({ description: 'VAT filing frequency; omitted means `bimonthly`' }),
    organizationId: UuidSchema.optional().openapi({
      description: "Organization that owns the company; defaults to the caller's own. Must be within the caller's reach.",
    }),
  })
  .openapi('CreateCompanyRequest', { description: 'A new company' }));

export const UpdateCompanySchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    displayName: displayName.optional(),
    organizationNumber: organizationNumber.nullable().optional(),
    accountingSystem: z.enum(accountingSystems).optional().openapi({ description: 'The system that owns the books; moving a company to or from Api changes whether it takes imports' }),
    vatFrequency: vatFrequency.optional(),
  })
  .openapi('UpdateCompanyRequest', { description: 'Patch semantics: absent fields stay unchanged; null clears organizationNumber.' }));

export const DeleteCompanySchema = /* @__PURE__ */ lazySchema(() => z
  .strictObject({
    reason: text({ max: limits.note, multiline: true, blank: true }).optional().openapi({ description: 'Free text kept with the deletion record' }),
  })
  .openapi('DeleteCompanyRequest', { description: 'Optional reason for the deletion' }));

export const deletionCauses = ['direct', 'organization_cascade'] as const;
export type DeletionCause = (typeof deletionCauses)[number];

export const CompanyDeletionSchema = /* @__PURE__ */ lazySchema(() => z
  .object({
    id: UuidSchema.openapi({ description: 'The deleted company (UUID)' }),
    deleted: z.literal(true),
    deletedAt: TimestampSchema,
    cause: z.enum(deletionCauses).openapi({
      description: '`direct` for DELETE on the company; `organization_cascade` when its organization was deleted (such a company cannot be restored)',
    }),
    reason: textOut(limits.note).nullable().openapi({ description: 'The reason given with the deletion, or null' }),
  })
  .openapi('CompanyDeletion', { description: 'The company is soft-deleted (restorable with POST .../restore); deleting it again answers the same deletion' }));

export const CompanyParamsSchema = /* @__PURE__ */ lazySchema(() => z.object({ companyId: UuidSchema }));
export const CompanyListQuerySchema = /* @__PURE__ */ lazySchema(() => z.strictObject(PageQuerySchema.shape));

export type Company = z.infer<typeof CompanySchema>;
export type CreateCompanyInput = z.infer<typeof CreateCompanySchema>;
export type UpdateCompanyInput = z.infer<typeof UpdateCompanySchema>;
export type CompanyDeletion = z.infer<typeof CompanyDeletionSchema>;
