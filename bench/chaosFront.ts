import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { bufferingServer, closeServer, listenOnLoopback } from './support.ts';

/** An answer of 500 (the service's `internal_error`: something it did not expect), kept to be shown. */
export interface ServerError {
  status: number;
  request: string;
  body: string;
}

const NO_BACKEND_WAIT_MS = 10_000;
const KEPT_SERVER_ERRORS = 20;

/**
 * The load balancer in front of the service processes, as an operator runs one: each request goes to a process
 * that is up, chosen at random. It counts the processes' answers by status and keeps every 5xx but a 503; when no
 * process is up, or one dies while answering, the caller gets a 502 from the balancer (counted apart).
 */
export class ChaosFront {
  readonly statuses = new Map<number, number>();
  readonly serverErrors: ServerError[] = [];
  /** A few refusals (4xx other than 404 and 429), to show why callers were turned down. */
  readonly refusals: ServerError[] = [];
  serverErrorCount = 0;
  /** 503 answers without `Retry-After`. */
  unavailableWithoutRetryAfter = 0;
  /** Requests the balancer answered itself because no process was up or the one asked died. */
  lostToProcessDeath = 0;
  /** Requests sent to each process and not yet answered: a process taken out of the balancer drains to 0. */
  readonly inFlight = new Map<string, number>();
  /** When each request other than a GET that a process answered 2xx was sent, in order of its answer. */
  readonly writesSucceededSentAt: number[] = [];
  private server: http.Server | undefined;
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

  constructor(private readonly backends: () => string[]) {}

  async start(): Promise<string> {
    this.server = bufferingServer((body, request, response) => this.forward(body, request, response));
    return listenOnLoopback(this.server);
  }

  async stop(): Promise<void> {
    await closeServer(this.server);
    this.agent.destroy();
  }

  private async backend(): Promise<string | undefined> {
    const deadline = Date.now() + NO_BACKEND_WAIT_MS;
    for (;;) {
      const live = this.backends();
      if (live.length) return live[Math.floor(Math.random() * live.length)];
      if (Date.now() > deadline) return undefined;
      await sleep(100);
    }
  }

  private answerItself(response: http.ServerResponse): void {
    this.lostToProcessDeath += 1;
    if (response.headersSent) return void response.destroy();
    response
      .writeHead(502, { 'content-type': 'application/json' })
      .end(JSON.stringify({ message: 'No service process answered (load balancer).', code: 'bad_gateway' }));
  }

  private async forward(body: Buffer, request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const sentAt = Date.now();
    const base = await this.backend();
    if (!base) return this.answerItself(response);
    const target = new URL(base);
    const headers = { ...request.headers, host: target.host, 'content-length': String(body.length) };
    const forwarded = http.request(
      {
        hostname: target.hostname,
        port: target.port,
        path: request.url,
        method: request.method,
        agent: this.agent,
        headers,
      },
      (answer) => {
        const status = answer.statusCode ?? 0;
        this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
        if (request.method !== 'GET' && status >= 200 && status < 300) this.writesSucceededSentAt.push(sentAt);
        if (status === 503 && !answer.headers['retry-after']) this.unavailableWithoutRetryAfter += 1;
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('error', () => response.destroy());
        answer.on('end', () => {
          const answerBody = Buffer.concat(chunks);
          if (
            status >= 400 &&
            status < 500 &&
            status !== 404 &&
            status !== 429 &&
            this.refusals.length < KEPT_SERVER_ERRORS
          )
            this.refusals.push({
              status,
              request: `${request.method} ${request.url}`,
              body: answerBody.toString('utf8').slice(0, 300),
            });
          if (status === 500) {
            this.serverErrorCount += 1;
            if (this.serverErrors.length < KEPT_SERVER_ERRORS)
              this.serverErrors.push({
                status,
                request: `${request.method} ${request.url}`,
                body: answerBody.toString('utf8').slice(0, 300),
              });
          }
          const {
            connection: _connection,
            'keep-alive': _keepAlive,
            'transfer-encoding': _encoding,
            ...passed
          } = answer.headers;
          response.writeHead(status, passed).end(answerBody);
        });
      },
    );
    forwarded.on('error', () => this.answerItself(response));
    this.inFlight.set(base, (this.inFlight.get(base) ?? 0) + 1);
    forwarded.once('close', () => this.inFlight.set(base, (this.inFlight.get(base) ?? 1) - 1));
    forwarded.end(body);
  }
}
