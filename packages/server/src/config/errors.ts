/** A configuration that cannot start the service: names every invalid field. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
