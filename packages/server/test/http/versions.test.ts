import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/errors.ts';
import {
  API_VERSIONS,
  compareVersions,
  isWellFormedVersion,
  REFERENCE_VERSION,
  requestedVersion,
  resolveVersion,
  versionHas,
} from '../../src/http/versions.ts';

function errorCode(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ApiError ? error.code : 'not an ApiError';
  }
  return undefined;
}

describe('API versions', () => {
  it('knows the reference version and the preview, oldest first', () => {
    expect(REFERENCE_VERSION).toBe('2026-02-18');
    const versions = API_VERSIONS.map((entry) => entry.version);
    expect(versions).toEqual(['2026-02-18', '2026-02-19.preview']);
    expect([...versions].sort(compareVersions)).toEqual(versions);
  });

  it.each([
    ['2026-02-18', true],
    ['2026-02-19.preview', true],
    ['2024-02-29', true],
    ['2026-02-30', false],
    ['2023-02-29', false],
    ['2026-2-18', false],
    ['2026-02-18.beta', false],
    ['2026-02-18 ', false],
    ['', false],
  ])('%j is well formed: %s', (value, expected) => {
    expect(isWellFormedVersion(value)).toBe(expected);
  });

  it('sorts a preview after the plain version of its date and before the next date', () => {
    expect(compareVersions('2026-02-18', '2026-02-18.preview')).toBe(-1);
    expect(compareVersions('2026-02-18.preview', '2026-02-19')).toBe(-1);
    expect(compareVersions('2026-02-19', '2026-02-19')).toBe(0);
  });

  it('reads Pay-Version and WCP-Version, refusing disagreement, bad form and unknown versions', () => {
    expect(requestedVersion({})).toBeUndefined();
    expect(requestedVersion({ 'pay-version': '2026-02-18' })).toBe('2026-02-18');
    expect(requestedVersion({ 'wcp-version': '2026-02-19.preview' })).toBe('2026-02-19.preview');
    expect(requestedVersion({ 'pay-version': '2026-02-18', 'wcp-version': '2026-02-18' })).toBe('2026-02-18');
    expect(
      errorCode(() => requestedVersion({ 'pay-version': '2026-02-18', 'wcp-version': '2026-02-19.preview' })),
    ).toBe('invalid_api_version');
    expect(errorCode(() => requestedVersion({ 'pay-version': 'latest' }))).toBe('invalid_api_version');
    expect(errorCode(() => requestedVersion({ 'pay-version': '2030-01-01' }))).toBe('unknown_api_version');
  });

  it('uses the pin when nothing is asked and refuses a downgrade below it', () => {
    expect(resolveVersion(undefined, '2026-02-19.preview')).toBe('2026-02-19.preview');
    expect(resolveVersion('2026-02-19.preview', '2026-02-18')).toBe('2026-02-19.preview');
    expect(errorCode(() => resolveVersion('2026-02-18', '2026-02-19.preview'))).toBe('api_version_downgrade');
  });

  it('changes behaviour only through named changes in the registry', () => {
    expect(versionHas('2026-02-18', 'asset-query-parameter-removed')).toBe(false);
    expect(versionHas('2026-02-19.preview', 'asset-query-parameter-removed')).toBe(true);
  });
});
