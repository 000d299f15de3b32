import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { verifyWebhookSignature } from '../signing.ts';

export interface Received {
  id: string;
  timestamp: number;
  type: string;
  data: Record<string, any>;
  body: string;
}

/** A partner's receiver: checks every signature with the secret it is given, answers 500 while `failing` > 0. */
export class Receiver {
  server: Server;
  secret = '';
  failing = 0;
  /** Answers 500 to every message it matches (one event the receiver cannot take), whatever `failing` is. */
  refuse: (message: Received) => boolean = () => false;
  /** How long each answer is held back (a slow receiver, so a kill lands mid-delivery). */
  holdMs = 0;
  requests = 0;
  /** Every webhook-id that arrived with a valid signature, answered or not, in arrival order. */
  arrived: string[] = [];
  badSignatures = 0;
  delivered: Received[] = [];
  constructor() {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.requests += 1;
        const body = Buffer.concat(chunks).toString('utf8');
        const id = String(request.headers['webhook-id']);
        const timestamp = Number(request.headers['webhook-timestamp']);
        if (!verifyWebhookSignature(this.secret, id, timestamp, body, String(request.headers['webhook-signature']))) {
          this.badSignatures += 1;
          response.writeHead(400).end();
          return;
        }
        this.arrived.push(id);
        const parsed = JSON.parse(body) as { type: string; timestamp: string; data: Record<string, any> };
        if (this.refuse({ id, timestamp, type: parsed.type, data: parsed.data, body })) {
          response.writeHead(500).end('cannot take this one');
          return;
        }
        if (this.failing > 0) {
          this.failing -= 1;
          response.writeHead(500).end('try later');
          return;
        }
        const answer = () => {
          // Counted as delivered only when the answer could be sent: a service killed meanwhile never saw it.
          if (response.destroyed || request.socket.destroyed) return;
          this.delivered.push({ id, timestamp, type: parsed.type, data: parsed.data, body });
          response.writeHead(204).end();
        };
        if (this.holdMs > 0) setTimeout(answer, this.holdMs);
        else answer();
      });
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }
  async waitFor(check: (delivered: Received[]) => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!check(this.delivered)) {
      if (Date.now() > end) assert.fail(`${what}: received ${JSON.stringify(this.delivered.map((message) => message.type))}`);
      await sleep(50);
    }
  }
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    return closed;
  }
}
