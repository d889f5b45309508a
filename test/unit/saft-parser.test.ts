import { createReadStream } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SaftMapping } from '../../shared/saft/mapping';
import { parseSaft, type SaftFileError } from '../../shared/saft/parser';

const fixture = (name: string) => createReadStream(new URL(`../fixtures/saft/${name}`, import.meta.url));
const read = async (name: string) => {
  const mapping = new SaftMapping();
  await parseSaft(fixture(name), mapping);
  return { mapping, report: mapping.report(mapping.openingBalances().length, 'valid') };
};
const refusal = async (text: string | Uint8Array) => {
  try {
    await parseSaft([typeof text === 'string' ? new TextEncoder().encode(text) : text], new SaftMapping());
  } catch (error) {
    return error as SaftFileError;
  }
  throw new Error('not refused');
};

describe('SAF-T parser and mapping', () => {
  it('reads the published 1.10 example 999999999: header, counts, control totals, the inconsistent closing balances', async () => {
    const { report } = await read('example-1.10-999999999.xml');
    expect(report.header).toMatchObject({ companyName: 'Selskapet AS', organizationNumber: '999999999', saftVersion: '1.10', fiscalYears: [2015] });
    expect(report.counts).toMatchObject({ accounts: 4, customers: 1, suppliers: 1, transactions: 2, lines: 5 });
    expect(report.controlTotals.matches).toBe(true);
    expect(report.closingBalanceMismatches.count).toBeGreaterThan(0);
    expect(report.skipped.find((s) => s.kind === 'openingBalances')?.samples[0]).toMatch(/account 1500/);
  });

  it('reads the 1.30 adaptation of the same example to the same report figures', async () => {
    const v110 = (await read('example-1.10-999999999.xml')).report;
    const v130 = (await read('example-1.30-999999999.xml')).report;
    expect(v130.header.saftVersion).toBe('1.30');
    expect(v130.counts).toEqual(v110.counts);
    expect(v130.closingBalanceMismatches).toEqual(v110.closingBalanceMismatches);
  });

  it('reads the published 1.10 example 888888888 with its control totals matching', async () => {
    const { report } = await read('example-1.10-888888888.xml');
    expect(report.header.organizationNumber).toBe('888888888');
    expect(report.controlTotals.matches).toBe(true);
    expect(report.counts.lines).toBe(170);
  });

  it('refuses what is not a SAF-T Financial file, before any record', async () => {
    expect((await refusal('hello, not xml')).code).toBe('not_xml');
    expect((await refusal(new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0]))).code).toBe('compressed');
    expect((await refusal('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><lolz>&lol2;</lolz>')).code).toBe('dtd_refused');
    const wrong = await refusal('<?xml version="1.0"?><AuditFile xmlns="urn:OECD:StandardAuditFile-Tax:PT_1.04_01"><Header/></AuditFile>');
    expect(wrong.code).toBe('not_saft');
    expect(wrong.message).toContain('urn:OECD:StandardAuditFile-Tax:PT_1.04_01');
    expect((await refusal('<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO"><Header><AuditFileVersion>2.0</AuditFileVersion></Header></AuditFile>')).code).toBe('unsupported_version');
    expect((await refusal('<AuditFile xmlns="urn:StandardAuditFile-Taxation-Financial:NO"><Header><AuditFileVersion>1.30</AuditFileVersion></Header><MasterFiles>')).code).toBe('truncated');
  });
});
