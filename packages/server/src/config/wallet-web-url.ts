import type { Config } from './config.ts';

/** The wallet app's web host (`a2a.links.webUrl`), or this service when none is set; no trailing slash. */
export function walletWebUrl(config: Readonly<Config>): string {
  return (config.a2a.links.webUrl ?? config.publicUrl).replace(/\/+$/, '');
}
