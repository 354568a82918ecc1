import { XMLParser } from 'fast-xml-parser';
import { addressKey, addressKeyOf, isValidAddress, parseAccountId } from '../chains/caip.ts';

/** The blocked addresses a list file names, as `addressKey`s, and the lines it could not read. */
export interface ParsedScreeningList {
  addresses: string[];
  skipped: { line: string; reason: string }[];
}

/** OFAC's SDN list names a digital currency address with this `idType`, the currency after it. */
const DIGITAL_CURRENCY_ADDRESS = 'Digital Currency Address - ';

/**
 * The addresses of a screening list: OFAC's SDN list in its XML form (`sdn.xml`: each `id` whose `idType` is a
 * digital currency address), or text with one address per line, as CAIP-10 (`eip155:1:0x…`, `solana:…:…`) or plain
 * (`0x…` for every EVM network, a base58 key for Solana); `#` starts a comment. Addresses of networks paygate does not
 * take (Bitcoin, Tron and others) are skipped, each with its reason.
 */
export function parseScreeningList(text: string): ParsedScreeningList {
  const trimmed = text.trimStart();
  return trimmed.startsWith('<') ? parseSdnXml(trimmed) : parseLines(text);
}

function parseLines(text: string): ParsedScreeningList {
  const addresses = new Set<string>();
  const skipped: ParsedScreeningList['skipped'] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    const key = line.includes(':') ? caip10Key(line) : addressKeyOf(line);
    if (key) addresses.add(key);
    else skipped.push({ line, reason: 'neither a CAIP-10 account nor an EVM or Solana address' });
  }
  return { addresses: [...addresses].sort(), skipped };
}

function caip10Key(value: string): string | undefined {
  // Lists write EVM addresses in any case; CAIP-10 parsing wants a checksum only when the case is mixed.
  const account = parseAccountId(value) ?? parseAccountId(value.toLowerCase());
  return account && addressKey(account.namespace, account.address);
}

function parseSdnXml(xml: string): ParsedScreeningList {
  const parser = new XMLParser({
    ignoreAttributes: true,
    parseTagValue: false,
    isArray: (name) => name === 'sdnEntry' || name === 'id',
  });
  const document = parser.parse(xml) as {
    sdnList?: { sdnEntry?: { idList?: { id?: { idType?: string; idNumber?: string }[] } }[] };
  };
  if (!document.sdnList) throw new Error('the XML is not an OFAC SDN list (no sdnList element)');
  const addresses = new Set<string>();
  const skipped: ParsedScreeningList['skipped'] = [];
  for (const entry of document.sdnList.sdnEntry ?? []) {
    for (const id of entry.idList?.id ?? []) {
      if (!id.idType?.startsWith(DIGITAL_CURRENCY_ADDRESS) || !id.idNumber) continue;
      const currency = id.idType.slice(DIGITAL_CURRENCY_ADDRESS.length);
      const number = String(id.idNumber).trim();
      // An EVM address is one key on every EVM network, whatever currency the list names it for (ETH, USDT, ARB…);
      // a base58 key is Solana's only when the list says so, as other currencies use base58 too.
      const key = number.startsWith('0x')
        ? addressKeyOf(number)
        : currency === 'SOL' && isValidAddress('solana', number)
          ? addressKey('solana', number)
          : undefined;
      if (key) addresses.add(key);
      else skipped.push({ line: `${currency} ${number}`, reason: 'not an address of a network paygate takes' });
    }
  }
  return { addresses: [...addresses].sort(), skipped };
}
