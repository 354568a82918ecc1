import net from 'node:net';
import { UserFacingError } from '../userFacingError.ts';

/** The address the service listens on cannot be taken; the message names the setting that chooses another. */
export class ListenAddressError extends UserFacingError {}

/** `error` from listening on `host:port`, said in terms of the settings that choose them; any other error as it is. */
export function listenAddressError(error: unknown, port: number, host: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE')
    return new ListenAddressError(
      `port ${port} on ${host} is already in use (another paygate, or another program): stop it, or set PORT to a free port`,
    );
  if (code === 'EACCES')
    return new ListenAddressError(`port ${port} on ${host} needs privileges this user lacks: set PORT above 1023`);
  if (code === 'EADDRNOTAVAIL')
    return new ListenAddressError(`${host} is not an address of this machine: set HOST to one of its addresses`);
  return error;
}

/**
 * Fails at once when the service could not listen on `host:port`, before the database, the chains and the workers
 * take seconds to start only to fail there. The port is let go again at once; listening itself reports a program
 * that takes it in between.
 */
export async function ensureListenAddressFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
    });
  } catch (error) {
    throw listenAddressError(error, port, host);
  }
}
