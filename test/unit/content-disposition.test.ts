import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../shared/documents/storage';

/** The download header of a stored file name: any name (lone surrogates included) gives an ASCII header. */
describe('contentDisposition', () => {
  it('a lone surrogate becomes U+FFFD in filename* and _ in the fallback', () => {
    expect(contentDisposition('a\ud800b.txt')).toBe(`attachment; filename="a_b.txt"; filename*=UTF-8''a%EF%BF%BDb.txt`);
    expect(contentDisposition('x\udfff\ud83d\ude00.pdf')).toBe(`attachment; filename="x__.pdf"; filename*=UTF-8''x%EF%BF%BD%F0%9F%98%80.pdf`);
  });

  it('never throws and answers printable ASCII without a bare quote in the fallback, whatever the name', () => {
    const unit = fc.oneof(fc.string({ unit: 'binary', maxLength: 1 }), fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (name) => {
        const header = contentDisposition(name);
        expect(header).toMatch(/^attachment; filename="[\x20-\x21\x23-\x7e]*"; filename\*=UTF-8''[A-Za-z0-9%!._~-]*$/);
      }),
      { seed: 6266, numRuns: 500 },
    );
  });
});
