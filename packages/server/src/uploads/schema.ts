import Type from 'typebox';

/** A4 answer: the public URL of the image. */
export const ImageUploadAnswer = Type.Object({ image: Type.String() });
/** A5 answer: the public URL of the image or video. */
export const ResourceUploadAnswer = Type.Object({ url: Type.String() });
/** A6 answer: the stored name, `<uuid>.<ext>`, that a card's `secure` object names. */
export const SecureUploadAnswer = Type.Object({ filename: Type.String() });
/** Path of the file routes. */
export const StoredFileParams = Type.Object({ filename: Type.String() });
