import { AsyncLocalStorage } from 'node:async_hooks';
import { Writable } from 'node:stream';
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import type { Config } from '../config/config.ts';
import { asWrittenInJson, configSecretValues, redactLine } from './redaction.ts';

/** What every log line made while a request is handled carries: its id (commands and the outbox included). */
export const requestContext = new AsyncLocalStorage<{ reqId: string }>();

export interface LoggerOptions {
  level: Level | 'silent';
  /** One readable line per entry instead of JSON (the default when stdout is a terminal). */
  pretty?: boolean;
  /** Where lines go; stdout by default. */
  destination?: DestinationStream;
  /** The configuration whose secret values (logging/redaction.ts) are masked in every line. */
  config?: Readonly<Config>;
}

/**
 * The service's logger: pino JSON with secrets redacted (fields marked secret in the schemas, and
 * the configuration's secret values: logging/redaction.ts), and the id of the request being
 * handled (from requestContext) on every line written while it is.
 */
export function createLogger(options: LoggerOptions): Logger {
  const secretValues = options.config ? configSecretValues(options.config).map(asWrittenInJson) : [];
  const destination = options.destination ?? (options.pretty ? prettyStream(process.stdout) : pino.destination(1));
  return pino(
    {
      level: options.level,
      // On the finished line, so that nothing escapes it: bindings, serialized errors, nested bodies.
      hooks: { streamWrite: (line) => redactLine(line, secretValues) },
      mixin: () => {
        const context = requestContext.getStore();
        return context ? { reqId: context.reqId } : {};
      },
    },
    destination,
  );
}

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const OMITTED = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'component']);

/** Turns pino's JSON lines into `12:03:04.567 INFO  [reqId] message key=value` for a person at a terminal. */
export function prettyStream(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line) out.write(`${prettyLine(line)}\n`);
      callback();
    },
  });
}

export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(Number(entry.time)).toISOString().slice(11, 23);
  const level = (LEVELS[Number(entry.level)] ?? String(entry.level)).padEnd(5);
  const where = [entry.component, entry.reqId].filter(Boolean).map((part) => `[${String(part)}]`).join(' ');
  const err = entry.err as { message?: string; stack?: string } | undefined;
  const rest = Object.entries(entry)
    .filter(([key]) => !OMITTED.has(key) && key !== 'err')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const message = [time, level, where, entry.msg ?? err?.message ?? '', rest].filter(Boolean).join(' ');
  return err?.stack ? `${message}\n${err.stack}` : message;
}
