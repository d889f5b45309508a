import type { Page } from '../db/query-page';
import { cursorCaller, type Principal } from '../identity/principal';
import { problems } from '../platform/problem';
import { importRepository, toImportRecord } from './repository';
import type { FetchRun, ImportRecord } from './schemas';

/** Reads of imports and fetch runs of a company (the runner has resolved it within the caller's reach). */
export const getImport = async (companyId: string, importId: string): Promise<ImportRecord> => {
  const item = await importRepository.get(importId);
  if (!item || item.companyId !== companyId) throw problems.notFound('import');
  return toImportRecord(item);
};

export const listImports = async (
  principal: Principal,
  companyId: string,
  query: { kind?: string; status?: string; year?: number; cursor?: string; page_size: number },
): Promise<Page<ImportRecord>> => {
  const { cursor, page_size: pageSize, ...filters } = query;
  const page = await importRepository.listOfCompany(companyId, filters, {
    pageSize,
    ...(cursor && { cursor }),
    binding: { ...cursorCaller(principal, 'listImports'), filters: { companyId, ...filters } },
  });
  return { ...page, data: page.data.map(toImportRecord) };
};

export const listFetchRuns = async (principal: Principal, companyId: string, query: { cursor?: string; page_size: number }): Promise<Page<FetchRun>> => {
  return importRepository.listFetchRuns(companyId, {
    pageSize: query.page_size,
    ...(query.cursor && { cursor: query.cursor }),
    binding: { ...cursorCaller(principal, 'listFetchRuns'), filters: { companyId } },
  });
};
