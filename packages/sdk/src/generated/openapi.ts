// Generated from docs/openapi.json by packages/sdk/scripts/generate-types.mjs (npm run openapi). Do not edit.

export interface paths {
    "/v2/a2a/prepare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** B1 Prepare a request */
        post: operations["postV2A2aPrepare"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/a2a/result": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** B3 Result of a request (long-poll with wait) */
        get: operations["getV2A2aResult"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/a2a/links": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** B2 Links of a request key (universal, scheme and intent links, QR text) */
        get: operations["getV2A2aLinks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/a2a/qr": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** B2 QR code of a request key (PNG or SVG) */
        get: operations["getV2A2aQr"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/a2a/cards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** B4 Card query: the cards an address owns under an NFT contract */
        get: operations["getV2A2aCards"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/a2a/chains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The EVM chains and their read-only JSON-RPC endpoints */
        get: operations["getV2A2aChains"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/a2a/rpc/{chain}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Read-only JSON-RPC of a chain (eth_call, eth_getBalance, receipts, …) */
        post: operations["postV2A2aRpcChain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: never;
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    postV2A2aPrepare: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description B1: one object per type (auth, send_coin, send_token, send_card, execute_contract, sign_message, sign_message_eip191, sign_typedData_v4) */
        requestBody: {
            content: {
                "application/json": {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "auth";
                    /** @description Ignored: every address is returned together */
                    chain?: unknown;
                    /** @description Not used by this type: absent, null or empty (6402) */
                    transaction?: null | "" | unknown[];
                    /** @description Not used by this type: absent, null or empty (6402) */
                    message?: null | "" | unknown[];
                } | {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "send_coin";
                    /** @description main (default), ethereum or polygon; 6417 when not one of those served */
                    chain?: ("main" | "ethereum" | "polygon") | null | "";
                    /** @description Required for send_coin, send_token, send_card and execute_contract (6402) */
                    transaction: {
                        /** @description When given, only the member with this address may approve (6411) */
                        from?: string | "" | null;
                        /**
                         * Format: evm-address
                         * @description Recipient (6403); 0x hex, a valid checksum when mixed case
                         */
                        to: string;
                        /** @description Coins as a decimal string, at most 18 decimals (6404) */
                        amount: string;
                    };
                    /** @description Not used by this type: absent, null or empty (6402) */
                    message?: null | "" | unknown[];
                } | {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "send_token";
                    /** @description main (default), ethereum or polygon; 6417 when not one of those served */
                    chain?: ("main" | "ethereum" | "polygon") | null | "";
                    /** @description Required for send_coin, send_token, send_card and execute_contract (6402) */
                    transaction: {
                        /**
                         * Format: evm-address
                         * @description ERC-20 contract; the all-zero address selects the native coin (6405); 0x hex, a valid checksum when mixed case
                         */
                        contract: string;
                        /** @description When given, only the member with this address may approve (6411) */
                        from?: string | "" | null;
                        /**
                         * Format: evm-address
                         * @description Recipient (6403); 0x hex, a valid checksum when mixed case
                         */
                        to: string;
                        /** @description Whole tokens as a decimal string, converted by the contract's decimals() (6404) */
                        amount: string;
                    };
                    /** @description Not used by this type: absent, null or empty (6402) */
                    message?: null | "" | unknown[];
                } | {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "send_card";
                    /** @description main (default), ethereum or polygon; 6417 when not one of those served */
                    chain?: ("main" | "ethereum" | "polygon") | null | "";
                    /** @description Required for send_coin, send_token, send_card and execute_contract (6402) */
                    transaction: {
                        /**
                         * Format: evm-address
                         * @description ERC-721 card contract (6405); 0x hex, a valid checksum when mixed case
                         */
                        contract: string;
                        /** @description When given, only the member with this address may approve (6411) */
                        from?: string | "" | null;
                        /**
                         * Format: evm-address
                         * @description Recipient (6403); 0x hex, a valid checksum when mixed case
                         */
                        to: string;
                        /** @description Card id: a string of digits, or a number (6406) */
                        card_id: string | number;
                    };
                    /** @description Not used by this type: absent, null or empty (6402) */
                    message?: null | "" | unknown[];
                } | {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "execute_contract";
                    /** @description main (default), ethereum or polygon; 6417 when not one of those served */
                    chain?: ("main" | "ethereum" | "polygon") | null | "";
                    /** @description Required for send_coin, send_token, send_card and execute_contract (6402) */
                    transaction: {
                        /**
                         * Format: evm-address
                         * @description The contract called (6403); 0x hex, a valid checksum when mixed case
                         */
                        to: string;
                        /** @description When given, only the member with this address may approve (6411) */
                        from?: string | "" | null;
                        /** @description Wei sent with the call, a whole number as a string; default "0" (6409) */
                        value?: string | null;
                        /** @description One function item, or an array holding exactly one function (error items beside it name custom reverts), or JSON text of either (6407) */
                        abi?: string | Record<string, never> | unknown[] | null;
                        /** @description The arguments, as an array or JSON text of one; tuples as arrays or objects by component name (6408) */
                        params?: string | unknown[] | null;
                        /** @description Calldata, 0x hex of at least 4 bytes: instead of abi and params (6402) */
                        encoded_function_call?: string | null;
                    };
                    /** @description Not used by this type: absent, null or empty (6402) */
                    message?: null | "" | unknown[];
                } | {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "sign_message";
                    /** @description main (default), ethereum or polygon; 6417 when not one of those served */
                    chain?: ("main" | "ethereum" | "polygon") | null | "";
                    /** @description Required for sign_message, sign_message_eip191 and sign_typedData_v4 (6402) */
                    message: {
                        /** @description When given, only the member with this address may approve (6411) */
                        from?: string | "" | null;
                        /** @description The text to sign, or 0x hex bytes with is_hex_encoded (6409) */
                        value: string;
                        /** @description true: value is 0x hex bytes; default false (6402) */
                        is_hex_encoded?: boolean | null;
                    };
                    /** @description Not used by this type: absent, null or empty (6402) */
                    transaction?: null | "" | unknown[];
                } | {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "sign_message_eip191";
                    /** @description main (default), ethereum or polygon; 6417 when not one of those served */
                    chain?: ("main" | "ethereum" | "polygon") | null | "";
                    /** @description Required for sign_message, sign_message_eip191 and sign_typedData_v4 (6402) */
                    message: {
                        /** @description When given, only the member with this address may approve (6411) */
                        from?: string | "" | null;
                        /** @description The text to sign, or 0x hex bytes with is_hex_encoded (6409) */
                        value: string;
                        /** @description true: value is 0x hex bytes; default false (6402) */
                        is_hex_encoded?: boolean | null;
                    };
                    /** @description Not used by this type: absent, null or empty (6402) */
                    transaction?: null | "" | unknown[];
                } | {
                    /** @description The BApp asking */
                    bapp: {
                        /** @description Name of the BApp, shown to the member (6401 when missing or blank) */
                        name: string;
                        callback?: {
                            /** @description Link the wallet offers after approving */
                            success?: string | null;
                            /** @description Link the wallet offers after a failure */
                            fail?: string | null;
                        } | (null | "" | unknown[]);
                        /** @description Fee-delegation credential: the fee payer pays the fee (6416, 6418) */
                        kas_authorization_key?: string | null;
                        /** @description Operator-issued key: the auth result carries ci_hash */
                        service_key?: string | null;
                    };
                    /** @enum {string} */
                    type: "sign_typedData_v4";
                    /** @description main (default), ethereum or polygon; 6417 when not one of those served */
                    chain?: ("main" | "ethereum" | "polygon") | null | "";
                    /** @description Required for sign_message, sign_message_eip191 and sign_typedData_v4 (6402) */
                    message: {
                        /** @description When given, only the member with this address may approve (6411) */
                        from?: string | "" | null;
                        /** @description EIP-712 typed data { types, primaryType, domain, message } as for eth_signTypedData_v4, or JSON text of it (6409) */
                        value: string | {
                            types: {
                                [key: string]: {
                                    name: string;
                                    type: string;
                                }[];
                            };
                            primaryType: string;
                            domain?: Record<string, never>;
                            message: Record<string, never>;
                        };
                    };
                    /** @description Not used by this type: absent, null or empty (6402) */
                    transaction?: null | "" | unknown[];
                };
            };
        };
        responses: {
            /** @description The request key and its expiry */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        /** @enum {string} */
                        status: "prepared";
                        expiration_time: number;
                        estimated_gas?: number;
                    };
                };
            };
            /** @description refused: a bare error, or the keyed body of a request key in error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        expiration_time: number;
                        /** @enum {string} */
                        status: "error";
                        error: {
                            /** @description the code of docs/errors.md */
                            code: number;
                            /** @description the registry's message */
                            err: string;
                            /** @description the detail (a revert reason), else the registry message */
                            message: string;
                        };
                    } | {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                        /** @description on B1's refusals: the specification's prepare error object */
                        error?: {
                            code: number;
                            /** @description the field the refusal is about and what is wrong with it, or the revert reason (6414) */
                            message: string;
                            err: string;
                        };
                    };
                };
            };
            /** @description an error of the registry */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": 4001,
                     *       "err": "invalid access token"
                     *     }
                     */
                    "application/json": {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
        };
    };
    getV2A2aResult: {
        parameters: {
            query: {
                /** @description the key prepare returned */
                request_key: string;
                /** @description hold the answer up to this many seconds until the state changes */
                wait?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request's status, and its result once completed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "request_key": "6f1b8a6e-1c1e-4b55-8a34-3c1f0e4d2b7a",
                     *       "expiration_time": 1722470400,
                     *       "status": "completed",
                     *       "result": {
                     *         "tx_hash": "0x9f0c4b3ad1e5f2a7c8b6d4e2f1a3c5b7d9e0f2a4c6b8d0e2f4a6c8b0d2e4f6a8",
                     *         "status": "success"
                     *       }
                     *     }
                     */
                    "application/json": {
                        request_key: string;
                        /** @description epoch seconds */
                        expiration_time: number;
                        status: "prepared" | "requested" | "completed" | "canceled";
                        result?: {
                            /** @description auth */
                            main_address?: string;
                            /** @description auth: the same as main_address */
                            evm_address?: string;
                            /** @description auth */
                            bitcoin_address?: string;
                            /** @description auth */
                            solana_address?: string;
                            /** @description auth */
                            tron_address?: string;
                            /** @description auth */
                            xrpl_address?: string;
                            /** @description transaction types */
                            tx_hash?: string;
                            /** @description transaction types */
                            status?: "pending" | "success" | "fail";
                            /** @description sign types (v is 27 or 28) */
                            signature?: string;
                            /** @description sign types: the digest signed */
                            hash?: string;
                        } & {
                            [key: string]: unknown;
                        };
                        /** @description auth prepared with a service_key */
                        ci_hash?: string;
                    };
                };
            };
            /** @description an unknown key (6000, bare), or a key in error (keyed) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        expiration_time: number;
                        /** @enum {string} */
                        status: "error";
                        error: {
                            /** @description the code of docs/errors.md */
                            code: number;
                            /** @description the registry's message */
                            err: string;
                            /** @description the detail (a revert reason), else the registry message */
                            message: string;
                        };
                    } | {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
            /** @description an error of the registry */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": 4001,
                     *       "err": "invalid access token"
                     *     }
                     */
                    "application/json": {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
        };
    };
    getV2A2aLinks: {
        parameters: {
            query: {
                request_key: string;
                /** @description global: the {a2a_url_global} links */
                region?: "default" | "global";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The links that open the request in the wallet app */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        region: string;
                        universal_link: string;
                        ios_scheme_link: string;
                        android_intent_link: string;
                        qr_text: string;
                        qr_png_url: string;
                        qr_svg_url: string;
                    };
                };
            };
            /** @description refused: a bare error, or the keyed body of a request key in error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        expiration_time: number;
                        /** @enum {string} */
                        status: "error";
                        error: {
                            /** @description the code of docs/errors.md */
                            code: number;
                            /** @description the registry's message */
                            err: string;
                            /** @description the detail (a revert reason), else the registry message */
                            message: string;
                        };
                    } | {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                        /** @description on B1's refusals: the specification's prepare error object */
                        error?: {
                            code: number;
                            /** @description the field the refusal is about and what is wrong with it, or the revert reason (6414) */
                            message: string;
                            err: string;
                        };
                    };
                };
            };
            /** @description an error of the registry */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": 4001,
                     *       "err": "invalid access token"
                     *     }
                     */
                    "application/json": {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
        };
    };
    getV2A2aQr: {
        parameters: {
            query: {
                request_key: string;
                format?: "png" | "svg";
                /** @description global: the {a2a_url_global} links */
                region?: "default" | "global";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the QR code of the universal link */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/png": string;
                    "image/svg+xml": string;
                };
            };
            /** @description refused: a bare error, or the keyed body of a request key in error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        expiration_time: number;
                        /** @enum {string} */
                        status: "error";
                        error: {
                            /** @description the code of docs/errors.md */
                            code: number;
                            /** @description the registry's message */
                            err: string;
                            /** @description the detail (a revert reason), else the registry message */
                            message: string;
                        };
                    } | {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                        /** @description on B1's refusals: the specification's prepare error object */
                        error?: {
                            code: number;
                            /** @description the field the refusal is about and what is wrong with it, or the revert reason (6414) */
                            message: string;
                            err: string;
                        };
                    };
                };
            };
            /** @description an error of the registry */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": 4001,
                     *       "err": "invalid access token"
                     *     }
                     */
                    "application/json": {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
        };
    };
    getV2A2aCards: {
        parameters: {
            query?: {
                /** @description NFT contract address */
                sca?: string;
                /** @description owner address */
                eoa?: string;
                /** @description next_cursor of the previous page */
                cursor?: string;
                /** @description main (default), ethereum or polygon */
                chain?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The cards the address owns under the contract, one page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Example Cards",
                     *       "symbol_img": "https://wallet.example.com/v2/files/0b6c6a3e-5b4e-4c1e-9f57-3f1f4c7a2d11.png",
                     *       "cards": [
                     *         {
                     *           "created_at": 1717200000,
                     *           "updated_at": 1717200000,
                     *           "created_at_format": "2024-06-01 00:00:00",
                     *           "updated_at_format": "2024-06-01 00:00:00",
                     *           "card_id": 7,
                     *           "card_uri": "https://wallet.example.com/v2/metadata/1/7",
                     *           "transaction_hash": "0x9f0c4b3ad1e5f2a7c8b6d4e2f1a3c5b7d9e0f2a4c6b8d0e2f4a6c8b0d2e4f6a8",
                     *           "owner": "0x5b38da6a701c568545dcfcb03fcb875f56beddc4",
                     *           "sender": "0xab8483f64d9c6d1ecf9b849ae677dd3315835cb2",
                     *           "sender_kakao_id": ""
                     *         }
                     *       ],
                     *       "next_cursor": ""
                     *     }
                     */
                    "application/json": {
                        /** @description contract name */
                        name: string;
                        symbol_img: string;
                        cards: {
                            created_at: number;
                            updated_at: number;
                            created_at_format: string;
                            updated_at_format: string;
                            card_id: number | string;
                            card_uri: string;
                            transaction_hash: string;
                            owner: string;
                            sender: string;
                            sender_kakao_id: string;
                        }[];
                        /** @description empty on the last page */
                        next_cursor: string;
                    };
                };
            };
            /** @description refused: a bare error, or the keyed body of a request key in error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        expiration_time: number;
                        /** @enum {string} */
                        status: "error";
                        error: {
                            /** @description the code of docs/errors.md */
                            code: number;
                            /** @description the registry's message */
                            err: string;
                            /** @description the detail (a revert reason), else the registry message */
                            message: string;
                        };
                    } | {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                        /** @description on B1's refusals: the specification's prepare error object */
                        error?: {
                            code: number;
                            /** @description the field the refusal is about and what is wrong with it, or the revert reason (6414) */
                            message: string;
                            err: string;
                        };
                    };
                };
            };
            /** @description an error of the registry */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": 4001,
                     *       "err": "invalid access token"
                     *     }
                     */
                    "application/json": {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
        };
    };
    getV2A2aChains: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every configured EVM chain, main first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chains: {
                            /** @description main, ethereum or polygon: the chain of App2App requests */
                            chain: string;
                            /** @description The EVM chain id */
                            chain_id: number;
                            /** @description The chain's read-only JSON-RPC endpoint on this service (POST /v2/a2a/rpc/{chain}) */
                            rpc_url: string;
                        }[];
                    };
                };
            };
            /** @description refused: a bare error, or the keyed body of a request key in error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        expiration_time: number;
                        /** @enum {string} */
                        status: "error";
                        error: {
                            /** @description the code of docs/errors.md */
                            code: number;
                            /** @description the registry's message */
                            err: string;
                            /** @description the detail (a revert reason), else the registry message */
                            message: string;
                        };
                    } | {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                        /** @description on B1's refusals: the specification's prepare error object */
                        error?: {
                            code: number;
                            /** @description the field the refusal is about and what is wrong with it, or the revert reason (6414) */
                            message: string;
                            err: string;
                        };
                    };
                };
            };
            /** @description an error of the registry */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": 4001,
                     *       "err": "invalid access token"
                     *     }
                     */
                    "application/json": {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
        };
    };
    postV2A2aRpcChain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                chain: string;
            };
            cookie?: never;
        };
        /** @description A JSON-RPC 2.0 call, or a batch of at most 20 */
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    jsonrpc?: "2.0";
                    id?: string | number | null;
                    method: string;
                    params?: unknown[] | Record<string, never>;
                } | {
                    /** @enum {string} */
                    jsonrpc?: "2.0";
                    id?: string | number | null;
                    method: string;
                    params?: unknown[] | Record<string, never>;
                }[];
            };
        };
        responses: {
            /** @description The node's answers, in the order of the calls */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        id: string | number | null;
                        result?: unknown;
                        error?: {
                            code: number;
                            message: string;
                            data?: unknown;
                        };
                    } | {
                        /** @enum {string} */
                        jsonrpc: "2.0";
                        id: string | number | null;
                        result?: unknown;
                        error?: {
                            code: number;
                            message: string;
                            data?: unknown;
                        };
                    }[];
                };
            };
            /** @description refused: a bare error, or the keyed body of a request key in error */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        expiration_time: number;
                        /** @enum {string} */
                        status: "error";
                        error: {
                            /** @description the code of docs/errors.md */
                            code: number;
                            /** @description the registry's message */
                            err: string;
                            /** @description the detail (a revert reason), else the registry message */
                            message: string;
                        };
                    } | {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                        /** @description on B1's refusals: the specification's prepare error object */
                        error?: {
                            code: number;
                            /** @description the field the refusal is about and what is wrong with it, or the revert reason (6414) */
                            message: string;
                            err: string;
                        };
                    };
                };
            };
            /** @description an error of the registry */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": 4001,
                     *       "err": "invalid access token"
                     *     }
                     */
                    "application/json": {
                        /** @description the code of docs/errors.md */
                        code: number;
                        /** @description the registry's message for the code */
                        err: string;
                        /** @description what was refused, or the detail of the failure */
                        message?: string;
                    };
                };
            };
        };
    };
}
