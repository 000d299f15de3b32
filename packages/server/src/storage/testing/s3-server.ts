import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { S3StorageSettings } from '../s3-storage.ts';

/** A real S3-compatible server (s3rver) on a free loopback port, with one empty bucket, for one test file. */
export interface TestS3Server {
  settings: S3StorageSettings & { endpoint: string };
  /** Where s3rver keeps its objects on disk (to check nothing was left behind). */
  directory: string;
  stop(): Promise<void>;
}

export async function startTestS3Server(bucket = 'wallet-test'): Promise<TestS3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'wallet-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    settings: {
      bucket,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      forcePathStyle: true,
      // s3rver's fixed development credentials.
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    },
    directory,
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
