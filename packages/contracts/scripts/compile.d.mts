// Types of compile.mjs for the TypeScript tests.

export declare const packageDir: string;
export declare const generatedDir: string;
export declare const artifactTargets: ReadonlyArray<{ source: string; contract: string; exportPrefix: string }>;
export declare const compilerSettings: Record<string, unknown>;

export declare class CompilationError extends Error {
  constructor(messages: string[]);
  readonly messages: string[];
}

export declare function compileSources(): {
  output: any;
  warnings: Array<{ severity: string; message: string; formattedMessage?: string }>;
  solcVersion: string;
};

export declare function compileContracts(options?: { onWarning?: (message: string) => void }): Record<string, string>;
