import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { redactedUrl } from '../../src/log.ts';
import { RequestLines, requestLogger } from '../../src/http/requestLogger.ts';

function capturedLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, destination), lines };
}

describe('request logger', () => {
  it('writes enabled lines bound to the request id, and nothing below the level', () => {
    const { logger, lines } = capturedLogger('warn');
    const log = requestLogger(logger, { reqId: 'req-1' }, {});
    log.info({ detail: 1 }, 'not written');
    log.debug('not written either');
    expect(lines).toEqual([]);
    log.error({ err: new Error('boom') }, 'unexpected error');
    log.warn('second line');
    expect(lines.map(({ reqId, msg, level }) => ({ reqId, msg, level }))).toEqual([
      { reqId: 'req-1', msg: 'unexpected error', level: 50 },
      { reqId: 'req-1', msg: 'second line', level: 40 },
    ]);
    expect((lines[0]!.err as { message: string }).message).toBe('boom');
  });

  it('follows the level of the service and of its own changes, and makes children bound to the request', () => {
    const { logger, lines } = capturedLogger('info');
    const log = requestLogger(logger, { reqId: 'req-2' }, {});
    expect(log.level).toBe('info');
    log.info('incoming request');
    log.level = 'error';
    log.warn('dropped');
    log.child({ step: 'settle' }).error('from a child');
    expect(lines.map(({ reqId, msg, step }) => ({ reqId, msg, step }))).toEqual([
      { reqId: 'req-2', msg: 'incoming request', step: undefined },
      { reqId: 'req-2', msg: 'from a child', step: 'settle' },
    ]);
  });

  it('makes the child at once for a route with its own level, which decides the lines', () => {
    const { logger, lines } = capturedLogger('warn');
    const log = requestLogger(logger, { reqId: 'req-3' }, { level: 'debug' });
    log.debug('route debugging');
    expect(lines.map(({ reqId, msg }) => ({ reqId, msg }))).toEqual([{ reqId: 'req-3', msg: 'route debugging' }]);
  });
});

describe('request lines', () => {
  it('says a client that went away mid-stream with the request lines, and any other stream failure as a warning', () => {
    const prematureClose = Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    for (const [logRequests, level] of [
      [false, 20],
      [true, 30],
    ] as const) {
      const { logger, lines } = capturedLogger('debug');
      const reply = { log: logger, statusCode: 200 };
      const request = { routeOptions: { config: {} } };
      const controller = new RequestLines(logRequests);
      controller.streamError(prematureClose, request as never, reply as never);
      controller.streamError(new Error('disk full'), request as never, reply as never);
      expect(lines.map(({ msg, level }) => ({ msg, level }))).toEqual([
        { msg: 'stream closed prematurely', level },
        { msg: 'response terminated with an error with headers already sent', level: 40 },
      ]);
    }
  });
});

describe('redactedUrl', () => {
  it('takes the buyer-data form token out of a URL, under any checkout path, and leaves other URLs alone', () => {
    expect(redactedUrl('/collect/abc.DEF-123')).toBe('/collect/[redacted]');
    expect(redactedUrl('/pay/collect/abc?lang=de')).toBe('/pay/collect/[redacted]?lang=de');
    expect(redactedUrl('/v1/merchants?search=collect')).toBe('/v1/merchants?search=collect');
    expect(redactedUrl('/pay_01J/status')).toBe('/pay_01J/status');
  });
});
