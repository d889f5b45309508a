import { companyContracts as contracts } from '../../shared/companies/contracts';
import {
  createCompany,
  deleteCompany,
  getCompany,
  listCompanies,
  restoreCompany,
  setCompanyStatus,
  updateCompany,
} from '../../shared/companies/service';
import { httpHandler } from '../../shared/platform/http';
import { defineOperation } from '../../shared/platform/operation';

export const handler = httpHandler('companies', {
  listCompanies: defineOperation(contracts.listCompanies, async ({ principal, query }) => ({
    status: 200,
    body: await listCompanies(principal, { pageSize: query.page_size, cursor: query.cursor }),
  })),
  createCompany: defineOperation(contracts.createCompany, async ({ principal, body }) => {
    const company = await createCompany(principal, body);
    return { status: 201, body: company, headers: { Location: `/v1/companies/${company.id}` } };
  }),
  getCompany: defineOperation(contracts.getCompany, async ({ principal, params }) => ({
    status: 200,
    body: await getCompany(principal, params.companyId),
  })),
  updateCompany: defineOperation(contracts.updateCompany, async ({ principal, params, body }) => ({
    status: 200,
    body: await updateCompany(principal, params.companyId, body),
  })),
  deleteCompany: defineOperation(contracts.deleteCompany, async ({ principal, params, body }) => ({
    status: 200,
    body: await deleteCompany(principal, params.companyId, body?.reason),
  })),
  disableCompany: defineOperation(contracts.disableCompany, async ({ principal, params }) => ({
    status: 200,
    body: await setCompanyStatus(principal, params.companyId, 'disabled'),
  })),
  enableCompany: defineOperation(contracts.enableCompany, async ({ principal, params }) => ({
    status: 200,
    body: await setCompanyStatus(principal, params.companyId, 'active'),
  })),
  restoreCompany: defineOperation(contracts.restoreCompany, async ({ principal, params }) => ({
    status: 200,
    body: await restoreCompany(principal, params.companyId),
  })),
});
