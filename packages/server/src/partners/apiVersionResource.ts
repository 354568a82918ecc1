import { Type } from '@sinclair/typebox';
import { API_VERSIONS } from '../http/versions.ts';

/** The API version a partner's requests run under by default, and every version it could pin. */
export const ApiVersionView = Type.Object({
  pinnedVersion: Type.String({ description: 'The version requests without a Pay-Version header run under' }),
  versions: Type.Array(
    Type.Object({
      version: Type.String(),
      description: Type.String({ description: 'What the version changes' }),
    }),
    { description: 'Every known version, oldest first' },
  ),
});

export function toApiVersionView(pinnedVersion: string) {
  return {
    pinnedVersion,
    versions: API_VERSIONS.map(({ version, description }) => ({ version, description })),
  };
}
