import multipart from '@fastify/multipart';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from 'typebox';
import { AppError } from '../errors/app-error.ts';
import { authenticatePartner, requestPartner } from '../partner-auth/authenticate.ts';
import { canReadSecureFile } from './access.ts';
import { findStoredFile, publicFileUrl, storeUpload } from './commands.ts';
import { imagePolicy, resourcePolicy, securePolicy, type UploadPolicy } from './policy.ts';
import { removeStaleUploads, uploadTempDir } from './receive.ts';
import { ImageUploadAnswer, ResourceUploadAnswer, SecureUploadAnswer, StoredFileBody, StoredFileParams, UploadFailure, UploadForm } from './schema.ts';
import { sendStoredFile } from './serve.ts';
import { Errors } from '../errors/codes.ts';
import { described } from '../http/schema.ts';

/** Temporary files older than this were left by a process that stopped mid-upload. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/**
 * A4 `POST /v2/wallet/image`, A5 `POST /v2/wallet/nftResource`, A6 `POST /v2/wallet/nftResource/secure`
 * and `GET /v2/wallet/nftResource/secure/:filename` (the uploading partner reads its secure file).
 * Registered inside the Family A context (program window, rate limit).
 */
export const uploadRoutes: FastifyPluginAsync = async (parent) => {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  // Limits are set per request from each endpoint's policy (receive.ts).
  await app.register(multipart);
  await removeStaleUploads(uploadTempDir(app.services.config.dataDir), STALE_UPLOAD_MS);

  const upload = (request: FastifyRequest, policy: UploadPolicy) => storeUpload(app.services, requestPartner(request), request, policy);
  // A4 to A6: the multipart body is a stream that receive.ts reads and checks; its schema documents the form only.
  const uploadOptions = <Answer extends TSchema>(summary: string, answer: Answer, description: string) => ({
    onRequest: authenticatePartner,
    validatorCompiler: () => () => true,
    schema: { summary, consumes: ['multipart/form-data'], body: UploadForm, response: { 200: described(answer, description), 500: UploadFailure } },
  });

  app.post('/v2/wallet/image', uploadOptions('A4 Upload an image', ImageUploadAnswer, 'The public URL of the stored image'), async (request) => {
    const file = await upload(request, imagePolicy(app.services.config));
    return { image: publicFileUrl(app.services, file) };
  });

  app.post('/v2/wallet/nftResource', uploadOptions('A5 Upload an image or video for a card', ResourceUploadAnswer, 'The public URL of the stored file'), async (request) => {
    const file = await upload(request, resourcePolicy(app.services.config));
    return { url: publicFileUrl(app.services, file) };
  });

  app.post('/v2/wallet/nftResource/secure', uploadOptions('A6 Upload a secure file', SecureUploadAnswer, 'The name of the stored secure file'), async (request) => {
    const file = await upload(request, securePolicy());
    return { filename: file.name };
  });

  app.get(
    '/v2/wallet/nftResource/secure/:filename',
    { onRequest: authenticatePartner, schema: { summary: 'A secure file the partner uploaded', params: StoredFileParams, response: { 200: StoredFileBody } } },
    async (request, reply) => {
      const partner = requestPartner(request);
      const file = await findStoredFile(app.services, request.params.filename);
      // Someone else's file is answered like a missing one: its existence is not disclosed.
      if (!file || !(await canReadSecureFile(file, { kind: 'partner', partnerId: partner.id }))) throw new AppError(Errors.NotFound);
      return sendStoredFile(app.services, request, reply, file, 'private, no-store');
    },
  );
};
