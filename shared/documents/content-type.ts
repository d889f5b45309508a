import type { DocumentContentType } from './schemas';

/** How many first bytes of an upload the content-type check needs. */
export const sniffLength = 512;

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  bytes.length >= offset + signature.length && signature.every((byte, index) => bytes[offset + index] === byte);
const ascii = (text: string) => [...text].map((character) => character.charCodeAt(0));

const pdf = ascii('%PDF-');
const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const jpeg = [0xff, 0xd8, 0xff];
const tiffLittle = [0x49, 0x49, 0x2a, 0x00];
const tiffBig = [0x4d, 0x4d, 0x00, 0x2a];
const heifBrands = new Set(['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1', 'avif']);
const binarySignatures = [pdf, png, jpeg, tiffLittle, tiffBig, ascii('PK\u0003\u0004'), ascii('GIF8')];

const isHeif = (bytes: Uint8Array) => {
  if (!startsWith(bytes, ascii('ftyp'), 4)) return false;
  const brand = String.fromCharCode(...bytes.subarray(8, 12));
  return heifBrands.has(brand);
};

const isText = (bytes: Uint8Array) => !bytes.includes(0) && !binarySignatures.some((signature) => startsWith(bytes, signature));

/** XML: optional UTF-8 byte-order mark and white space, then `<`. */
const isXml = (bytes: Uint8Array) => {
  let index = startsWith(bytes, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (index < bytes.length && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[index]!)) index++;
  return bytes[index] === 0x3c && isText(bytes.subarray(index));
};

/**
 * Whether the first bytes of an upload can be the declared type (magic numbers for the binary
 * formats; for the text formats: no NUL byte and no binary signature, XML starting with `<`).
 */
export const matchesContentType = (contentType: DocumentContentType, firstBytes: Uint8Array): boolean => {
  switch (contentType) {
    case 'application/pdf':
      return startsWith(firstBytes, pdf);
    case 'image/png':
      return startsWith(firstBytes, png);
    case 'image/jpeg':
      return startsWith(firstBytes, jpeg);
    case 'image/tiff':
      return startsWith(firstBytes, tiffLittle) || startsWith(firstBytes, tiffBig);
    case 'image/heic':
      return isHeif(firstBytes);
    case 'application/xml':
    case 'text/xml':
      return isXml(firstBytes);
    case 'text/csv':
    case 'text/plain':
      return isText(firstBytes);
  }
};
