import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AppError } from '../../errors/app-error.ts';
import { findStoredFile } from '../commands.ts';
import { StoredFileBody, StoredFileParams } from '../schema.ts';
import { sendStoredFile } from '../serve.ts';
import { Errors } from '../../errors/codes.ts';

/**
 * `GET /v2/files/:filename`: the public files of A4 and A5, for anyone (card images and videos are
 * shown by wallets and BApps). Not part of Family A: it keeps answering after the partner program
 * ends, since minted cards keep pointing at these URLs. Secure (A6) files are never served here.
 */
export const fileRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/v2/files/:filename', { schema: { summary: 'A public file (A4, A5)', params: StoredFileParams, response: { 200: StoredFileBody } } }, async (request, reply) => {
    const file = await findStoredFile(app.services, request.params.filename);
    if (!file || file.visibility !== 'public') throw new AppError(Errors.NotFound);
    // Names are random and never reused: the bytes under one never change.
    return sendStoredFile(app.services, request, reply, file, 'public, max-age=31536000, immutable');
  });
};
