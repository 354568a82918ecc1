import { describe, expect, it } from 'vitest';
import { parseScreeningList } from '../../src/screening/screeningListFile.ts';

const EVM = '0x8589427373D6D84E98730D7795D8f6f8731FDA16';
const EVM_OTHER = '0x722122dF12D4e14e13Ac3b6895a86e84145b6967';
const SOLANA = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';

describe('parseScreeningList', () => {
  it('reads text lines: CAIP-10 and plain addresses, EVM ones keyed lower case for every EVM network', () => {
    const parsed = parseScreeningList(
      [
        '# blocked by the operator',
        `eip155:1:${EVM.toLowerCase()}`,
        `eip155:8453:${EVM}`,
        `  ${EVM_OTHER.toUpperCase().replace('0X', '0x')}  # upper case, a trailing comment`,
        `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp:${SOLANA}`,
        '',
        'bc1qa5wkgaew2dkv56kfvj49j0av5nml45x9ek9hz6',
        'not an address',
      ].join('\r\n'),
    );
    expect(parsed.addresses).toEqual(
      [`eip155:${EVM.toLowerCase()}`, `eip155:${EVM_OTHER.toLowerCase()}`, `solana:${SOLANA}`].sort(),
    );
    expect(parsed.skipped.map((entry) => entry.line)).toEqual([
      'bc1qa5wkgaew2dkv56kfvj49j0av5nml45x9ek9hz6',
      'not an address',
    ]);
  });

  it("reads OFAC's SDN XML: each digital currency address of a network paygate takes, and skips the others", () => {
    const xml = `<?xml version="1.0" standalone="yes"?>
<sdnList xmlns="http://tempuri.org/sdnList.xsd">
  <publshInformation><Publish_Date>11/27/2026</Publish_Date></publshInformation>
  <sdnEntry>
    <uid>1</uid><lastName>EXAMPLE ONE</lastName><sdnType>Entity</sdnType>
    <idList>
      <id><uid>11</uid><idType>Digital Currency Address - ETH</idType><idNumber>${EVM}</idNumber></id>
      <id><uid>12</uid><idType>Digital Currency Address - XBT</idType><idNumber>1BoatSLRHtKNngkdXEeobR76b53LETtpyT</idNumber></id>
      <id><uid>13</uid><idType>Passport</idType><idNumber>X123</idNumber></id>
    </idList>
  </sdnEntry>
  <sdnEntry>
    <uid>2</uid><lastName>EXAMPLE TWO</lastName><sdnType>Individual</sdnType>
    <idList>
      <id><uid>21</uid><idType>Digital Currency Address - USDT</idType><idNumber>${EVM_OTHER}</idNumber></id>
      <id><uid>22</uid><idType>Digital Currency Address - USDT</idType><idNumber>TXmVpin5vq5gdZsciyyjdZgKRUju4st1wM</idNumber></id>
      <id><uid>23</uid><idType>Digital Currency Address - SOL</idType><idNumber>${SOLANA}</idNumber></id>
    </idList>
  </sdnEntry>
  <sdnEntry><uid>3</uid><lastName>NO IDS</lastName><sdnType>Entity</sdnType></sdnEntry>
</sdnList>`;
    const parsed = parseScreeningList(xml);
    expect(parsed.addresses).toEqual(
      [`eip155:${EVM.toLowerCase()}`, `eip155:${EVM_OTHER.toLowerCase()}`, `solana:${SOLANA}`].sort(),
    );
    expect(parsed.skipped.map((entry) => entry.line)).toEqual([
      'XBT 1BoatSLRHtKNngkdXEeobR76b53LETtpyT',
      'USDT TXmVpin5vq5gdZsciyyjdZgKRUju4st1wM',
    ]);
  });

  it('refuses XML that is not an SDN list', () => {
    expect(() => parseScreeningList('<html><body>not a list</body></html>')).toThrow(/not an OFAC SDN list/);
  });
});
