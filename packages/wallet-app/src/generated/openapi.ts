// Generated from docs/openapi.json by packages/wallet-app/scripts/generate-types.mjs (npm run openapi). Do not edit.

export interface paths {
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
    "/v2/wallet-app/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The member's live sessions */
        get: operations["getV2WalletAppSessions"];
        put?: never;
        /**
         * Sign a member in
         * @description With `X-Wallet-App: 1` (the wallet app) the session goes into an HttpOnly, SameSite=Lax cookie and the answer carries no token; without it, the answer carries `session_token` for `Authorization: Bearer`.
         */
        post: operations["postV2WalletAppSessions"];
        /** Sign out everywhere */
        delete: operations["deleteV2WalletAppSessions"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/sessions/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who is signed in, if anyone */
        get: operations["getV2WalletAppSessionsCurrent"];
        put?: never;
        post?: never;
        /** Sign out */
        delete: operations["deleteV2WalletAppSessionsCurrent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Sign out another session of the member */
        delete: operations["deleteV2WalletAppSessionsSessionId"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign up
         * @description Creates the member and signs them in, as sign-in does (a cookie with `X-Wallet-App: 1`, else `session_token`). Codes 410-414 and 430-435.
         */
        post: operations["postV2WalletAppMembers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/phone-countries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The regions a phone number may be written in */
        get: operations["getV2WalletAppPhoneCountries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/me/pin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The PIN's state (locked after five wrong PINs) */
        get: operations["getV2WalletAppMePin"];
        /** Change the PIN */
        put: operations["putV2WalletAppMePin"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/home": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The member's addresses and balances */
        get: operations["getV2WalletAppHome"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/home/other-chains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Show the bitcoin, solana, tron and xrpl addresses (PIN) */
        post: operations["postV2WalletAppHomeOtherChains"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/faucet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Test coins on an embedded chain */
        post: operations["postV2WalletAppFaucet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in member */
        get: operations["getV2WalletAppMe"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/a2a/requests/{request_key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** View an App2App request */
        get: operations["getV2WalletAppA2aRequestsRequestKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/a2a/requests/{request_key}/open": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Open an App2App request (prepared to requested) */
        post: operations["postV2WalletAppA2aRequestsRequestKeyOpen"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/a2a/requests/{request_key}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve an App2App request with the PIN */
        post: operations["postV2WalletAppA2aRequestsRequestKeyApprove"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/a2a/requests/{request_key}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel an App2App request */
        post: operations["postV2WalletAppA2aRequestsRequestKeyCancel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/cards/{nft_id}/{card_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A held card with its secure part and status */
        get: operations["getV2WalletAppCardsNftIdCardId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/files/secure/{filename}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A secure file of a held card */
        get: operations["getV2WalletAppFilesSecureFilename"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/cards": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The member's cards grouped by BApp */
        get: operations["getV2WalletAppCards"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/cards/{nft_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** More of the member's cards of one BApp */
        get: operations["getV2WalletAppCardsNftId"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/cards/{nft_id}/{card_id}/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a card the member holds */
        post: operations["postV2WalletAppCardsNftIdCardIdSend"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The member's activity, newest first */
        get: operations["getV2WalletAppActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/transfers/quote": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a send of coins or tokens: the fee and the balances */
        post: operations["postV2WalletAppTransfersQuote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/transfers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send coins or tokens with the PIN */
        post: operations["postV2WalletAppTransfers"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/claims/{claim_id}/view": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The card behind a claim link */
        post: operations["postV2WalletAppClaimsClaimIdView"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/wallet-app/claims/{claim_id}/claim": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Claim a card through its link */
        post: operations["postV2WalletAppClaimsClaimIdClaim"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v2/metadata/{nft_id}/{card_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Card metadata (card_uri and tokenURI) */
        get: operations["getV2MetadataNftIdCardId"];
        put?: never;
        post?: never;
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
    getV2WalletAppSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member's live sessions */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessions: {
                            id: string;
                            /** @description epoch seconds */
                            created_at: number;
                            /** @description epoch seconds */
                            expires_at: number;
                            /** @description the browser that signed in */
                            user_agent: string | null;
                            /** @description the session of this request */
                            current: boolean;
                        }[];
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    /** @description SHA-256 hex of the password */
                    password: string;
                };
            };
        };
        responses: {
            /** @description The member, signed in (the session in a cookie, or its token for API clients) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description send as `Authorization: Bearer <session_token>`; absent when the session went into the cookie */
                        session_token?: string;
                        /** @description epoch seconds */
                        expires_at: number;
                        member: {
                            email: string;
                            name: string;
                            main_address: string;
                            status: number;
                        };
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    deleteV2WalletAppSessions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Every session of the member is ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description how many sessions ended */
                        signed_out: number;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppSessionsCurrent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed-in member, or null */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        member: {
                            email: string;
                            name: string;
                            main_address: string;
                            status: number;
                        } | null;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    deleteV2WalletAppSessionsCurrent: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The session is ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    deleteV2WalletAppSessionsSessionId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description That session is ended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppMembers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description legal name */
                    name: string;
                    /** @description E.164, or national in `phone_country` (else `phoneDefaultCountry`) */
                    phone: string;
                    /** @description ISO 3166-1 alpha-2 region of a national phone number (`010-1234-5678` with KR); default `phoneDefaultCountry` */
                    phone_country?: string;
                    email: string;
                    /** @description SHA-256 hex of the password */
                    password: string;
                    /** @description YYYY-MM-DD */
                    birth: string;
                    /** @description SHA-256 hex of the 6-digit PIN */
                    pin: string;
                };
            };
        };
        responses: {
            /** @description The new member, signed in */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description send as `Authorization: Bearer <session_token>`; absent when the session went into the cookie */
                        session_token?: string;
                        /** @description epoch seconds */
                        expires_at: number;
                        member: {
                            email: string;
                            name: string;
                            main_address: string;
                            status: number;
                        };
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppPhoneCountries: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description libphonenumber's regions with their calling codes, and `phoneDefaultCountry` */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description `phoneDefaultCountry`: the region a phone without one is read in */
                        default_country: string;
                        countries: {
                            /** @description ISO 3166-1 alpha-2 */
                            country: string;
                            /** @description without the + */
                            calling_code: string;
                        }[];
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppMePin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Whether the PIN is locked, and the wrong PINs so far */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description wrong PINs in a row */
                        failures: number;
                        /** @description wrong PINs in a row that lock signing */
                        max_failures: number;
                        /** @description signing is locked (403) until the operator runs `user unlock --email E` */
                        locked: boolean;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    putV2WalletAppMePin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description SHA-256 hex of the current PIN */
                    old_pin: string;
                    /** @description SHA-256 hex of the new PIN */
                    new_pin: string;
                };
            };
        };
        responses: {
            /** @description The PIN is changed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppHome: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Addresses on every chain and the coins on each EVM chain */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chains: {
                            chain: string;
                            chain_id: number;
                            /** @description the chain as people know it (config `displayName`) */
                            display_name: string;
                            /** @description the chain's coin (config `ticker`) */
                            ticker: string;
                            /** @description the coin's decimals (config `decimals`) */
                            decimals: number;
                            address: string;
                            /** @description smallest units (wei), decimal; null when the chain did not answer */
                            balance: string | null;
                            /** @description the exact balance in coins; null when the chain did not answer */
                            coins: string | null;
                            /** @description an embedded chain: POST /v2/wallet-app/faucet sends test coins */
                            faucet: boolean;
                            /** @description the listed tokens, and tokens seen in her transfers that she holds */
                            tokens: {
                                contract: string;
                                symbol: string;
                                decimals: number;
                                /** @description smallest units, decimal */
                                units: string;
                                /** @description the exact balance in tokens */
                                amount: string;
                                /** @description on the chain's configured token list (shown at 0 too) */
                                listed: boolean;
                            }[];
                        }[];
                        /** @description null until shown once with the PIN (POST /v2/wallet-app/home/other-chains) */
                        other_chains: {
                            bitcoin: string;
                            solana: string;
                            tron: string;
                            xrpl: string;
                        } | null;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppHomeOtherChains: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description SHA-256 hex of the PIN */
                    pin: string;
                };
            };
        };
        responses: {
            /** @description Addresses on every chain, the other chains included */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chains: {
                            chain: string;
                            chain_id: number;
                            /** @description the chain as people know it (config `displayName`) */
                            display_name: string;
                            /** @description the chain's coin (config `ticker`) */
                            ticker: string;
                            /** @description the coin's decimals (config `decimals`) */
                            decimals: number;
                            address: string;
                            /** @description smallest units (wei), decimal; null when the chain did not answer */
                            balance: string | null;
                            /** @description the exact balance in coins; null when the chain did not answer */
                            coins: string | null;
                            /** @description an embedded chain: POST /v2/wallet-app/faucet sends test coins */
                            faucet: boolean;
                            /** @description the listed tokens, and tokens seen in her transfers that she holds */
                            tokens: {
                                contract: string;
                                symbol: string;
                                decimals: number;
                                /** @description smallest units, decimal */
                                units: string;
                                /** @description the exact balance in tokens */
                                amount: string;
                                /** @description on the chain's configured token list (shown at 0 too) */
                                listed: boolean;
                            }[];
                        }[];
                        /** @description null until shown once with the PIN (POST /v2/wallet-app/home/other-chains) */
                        other_chains: {
                            bitcoin: string;
                            solana: string;
                            tron: string;
                            xrpl: string;
                        } | null;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppFaucet: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: string;
                };
            };
        };
        responses: {
            /** @description The test coins are sent and mined */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chain: string;
                        transaction_hash: string;
                        /** @description coins sent */
                        coins: string;
                        /** @description the balance afterwards, wei */
                        balance: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppMe: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The signed-in member */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        email: string;
                        name: string;
                        main_address: string;
                        status: number;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppA2aRequestsRequestKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request as the member confirms it */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        type: string;
                        chain: string;
                        status: string;
                        expiration_time: number;
                        bapp: {
                            name: string;
                            callback: {
                                success?: string;
                                fail?: string;
                            } | null;
                            /** @description the name reads as the operator's own (request-facts.ts): the app refuses to approve it */
                            impersonates_operator?: boolean;
                        };
                        /** @description one line for the confirmation screen */
                        summary: string;
                        from: string | null;
                        fee_delegated: boolean;
                        estimated_gas: number | null;
                        estimated_fee?: string | null;
                        /** @description send_token: the token contract's own symbol and decimals */
                        token?: {
                            symbol: string | null;
                            decimals: number;
                        };
                        /** @description contracts the request names that this service deployed (request-facts.ts) */
                        contracts?: {
                            address: string;
                            name: string;
                            /** @description the partner's name, or this wallet */
                            operated_by: string;
                        }[];
                        /** @description dangers the member acknowledges before the PIN; empty for a harmless request */
                        warnings?: {
                            kind: "approval_for_all" | "unlimited_approval" | "moves_own_asset" | "permit" | "permit2" | "new_contract";
                            /** @description why it is dangerous, in words */
                            reason: string;
                        }[];
                        /** @description the chain's name and coin ticker as people see them */
                        chain_display?: {
                            name: string;
                            ticker: string;
                        } | null;
                        /** @description the member's coins (wei) now and after value and fee */
                        coin_balance?: {
                            before: string;
                            /** @description negative when the balance does not cover it */
                            after: string;
                        } | null;
                        /** @description send_token: the member's units of the token now and after */
                        token_balance?: {
                            before: string;
                            /** @description negative when the balance does not cover it */
                            after: string;
                        } | null;
                        transaction?: {
                            from: string | null;
                            to: string;
                            amount?: string;
                            contract?: string;
                            native_coin?: boolean;
                            decimals?: number;
                            card_id?: string;
                            /** @description wei sent with the call, decimal */
                            value: string;
                            function?: string | null;
                            params?: unknown[] | null;
                            abi?: unknown[];
                            /** @description the calldata that will be signed */
                            data: string;
                        };
                        message?: {
                            from: string | null;
                            value: string;
                            is_hex_encoded: boolean;
                            text: string | null;
                        };
                        /** @description the EIP-712 message */
                        typed_data?: unknown;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppA2aRequestsRequestKeyOpen: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The request, now requested */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        request_key: string;
                        type: string;
                        chain: string;
                        status: string;
                        expiration_time: number;
                        bapp: {
                            name: string;
                            callback: {
                                success?: string;
                                fail?: string;
                            } | null;
                            /** @description the name reads as the operator's own (request-facts.ts): the app refuses to approve it */
                            impersonates_operator?: boolean;
                        };
                        /** @description one line for the confirmation screen */
                        summary: string;
                        from: string | null;
                        fee_delegated: boolean;
                        estimated_gas: number | null;
                        estimated_fee?: string | null;
                        /** @description send_token: the token contract's own symbol and decimals */
                        token?: {
                            symbol: string | null;
                            decimals: number;
                        };
                        /** @description contracts the request names that this service deployed (request-facts.ts) */
                        contracts?: {
                            address: string;
                            name: string;
                            /** @description the partner's name, or this wallet */
                            operated_by: string;
                        }[];
                        /** @description dangers the member acknowledges before the PIN; empty for a harmless request */
                        warnings?: {
                            kind: "approval_for_all" | "unlimited_approval" | "moves_own_asset" | "permit" | "permit2" | "new_contract";
                            /** @description why it is dangerous, in words */
                            reason: string;
                        }[];
                        /** @description the chain's name and coin ticker as people see them */
                        chain_display?: {
                            name: string;
                            ticker: string;
                        } | null;
                        /** @description the member's coins (wei) now and after value and fee */
                        coin_balance?: {
                            before: string;
                            /** @description negative when the balance does not cover it */
                            after: string;
                        } | null;
                        /** @description send_token: the member's units of the token now and after */
                        token_balance?: {
                            before: string;
                            /** @description negative when the balance does not cover it */
                            after: string;
                        } | null;
                        transaction?: {
                            from: string | null;
                            to: string;
                            amount?: string;
                            contract?: string;
                            native_coin?: boolean;
                            decimals?: number;
                            card_id?: string;
                            /** @description wei sent with the call, decimal */
                            value: string;
                            function?: string | null;
                            params?: unknown[] | null;
                            abi?: unknown[];
                            /** @description the calldata that will be signed */
                            data: string;
                        };
                        message?: {
                            from: string | null;
                            value: string;
                            is_hex_encoded: boolean;
                            text: string | null;
                        };
                        /** @description the EIP-712 message */
                        typed_data?: unknown;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppA2aRequestsRequestKeyApprove: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description SHA-256 hex of the PIN */
                    pin: string;
                };
            };
        };
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppA2aRequestsRequestKeyCancel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                request_key: string;
            };
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppCardsNftIdCardId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nft_id: number;
                card_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The card with its secure part and status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        nft_id: number;
                        card_id: number;
                        card_uri: string;
                        /** @description the minting transaction */
                        transaction_hash: string;
                        /** @description the BApp the card belongs to: its partner's service name, as the card lists group it */
                        bapp_name: string;
                        /**
                         * @example {
                         *       "name": "Member card",
                         *       "description": "A card for members",
                         *       "image": "https://wallet.example.com/v2/files/0b6c6a3e-5b4e-4c1e-9f57-3f1f4c7a2d11.png",
                         *       "nft_id": 1,
                         *       "card_id": 7,
                         *       "attributes": [
                         *         {
                         *           "trait_type": "level",
                         *           "value": "gold"
                         *         }
                         *       ],
                         *       "sendable": false,
                         *       "layout": "general"
                         *     }
                         */
                        metadata: {
                            name: string;
                            description: string;
                            image: string;
                            nft_id: number;
                            card_id: number;
                            animation_url?: string;
                            /** @description RGB hex without # */
                            background_color?: string;
                            /** @description external_link, as ERC-721 names it */
                            external_url?: string;
                            attributes?: {
                                trait_type: string;
                                value: string;
                            }[];
                            sendable?: boolean;
                            send_friend_only?: boolean;
                            group_name?: string;
                            group_icon?: string;
                            hashtags?: string[];
                            layout?: "general" | "horizontal" | "vertical";
                            external_link?: string;
                            custom_links?: {
                                display_name: string;
                                value: string;
                            }[];
                            /** @description URL of the public QR code image */
                            qr_code?: string;
                            /** @description URL of the public bar code image */
                            bar_code?: string;
                            status_url?: string;
                        } & {
                            [key: string]: unknown;
                        };
                        /** @description shown only to the holder */
                        secure: {
                            bar_code?: string;
                            qr_code?: string;
                            attributes?: {
                                trait_type: string;
                                value: string;
                            }[];
                            images?: {
                                low_resolution?: string;
                                high_resolution?: string;
                            }[];
                            animations?: {
                                low_resolution?: string;
                                high_resolution?: string;
                            }[];
                        } | null;
                        /** @description the status_url's answer */
                        status?: {
                            valid: boolean;
                            attributes?: unknown[];
                        };
                        /** @description why the status_url could not be read */
                        status_error?: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppFilesSecureFilename: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                filename: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the bytes of the file, with its type */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "image/*": string;
                    "video/*": string;
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppCards: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The member's cards, grouped by BApp */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        bapps: {
                            id: number;
                            name: string;
                            bapp_img: string;
                            category_id: number;
                            nft_order_no: number;
                            summary: string;
                            card_count: number;
                            nft_id: number;
                            cards: {
                                created_at: number;
                                updated_at: number;
                                card_id: number;
                                card_uri: string;
                                transaction_hash: string;
                                name: string;
                                image: string;
                                animation_url?: string;
                                background_color?: string;
                                /** @description general, horizontal or vertical */
                                layout: string;
                                sendable: boolean;
                                /** @description sending to friends only is not available: such a card cannot be sent */
                                send_friend_only: boolean;
                            }[];
                            cards_next_cursor: string;
                        }[];
                        /** @description '' on the last page */
                        next_cursor: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppCardsNftId: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                nft_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The next cards of the BApp */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        name: string;
                        symbol_img: string;
                        cards: {
                            created_at: number;
                            updated_at: number;
                            card_id: number;
                            card_uri: string;
                            transaction_hash: string;
                            name: string;
                            image: string;
                            animation_url?: string;
                            background_color?: string;
                            /** @description general, horizontal or vertical */
                            layout: string;
                            sendable: boolean;
                            /** @description sending to friends only is not available: such a card cannot be sent */
                            send_friend_only: boolean;
                        }[];
                        next_cursor: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppCardsNftIdCardIdSend: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nft_id: number;
                card_id: number;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    pin: string;
                    to_address?: string;
                    to_person?: {
                        name: string;
                        phone: string;
                        /** @description ISO 3166-1 alpha-2 region of a national phone number (`010-1234-5678` with KR); default `phoneDefaultCountry` */
                        phone_country?: string;
                    };
                };
            };
        };
        responses: {
            /** @description The card is sent; the transfer is mined */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the mined transfer */
                        hash: string;
                        /** @description where the card went */
                        to_address: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description another operation on this card is in progress (4209): nothing was signed; try again once it has answered */
            409: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2WalletAppActivity: {
        parameters: {
            query?: {
                /** @description next_cursor of the previous page */
                cursor?: string;
                /** @description items a page; 20 unless given */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of activity and the cursor of the next */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: ({
                            /** @enum {string} */
                            kind: "request";
                            request_key: string;
                            type: string;
                            chain: string;
                            /** @description prepared, requested, completed, canceled or error, as stored */
                            status: string;
                            /** @description what happened: `expired` once an unanswered request's time is over; `refused` when the app would not approve it (a BApp named as the operator) */
                            state: "not_opened" | "waiting" | "approved" | "canceled" | "failed" | "expired" | "refused";
                            bapp_name: string;
                            summary: string;
                            /** @description epoch seconds: when it was made */
                            time: number;
                            finished_at: number | null;
                            tx_hash?: string;
                            error?: {
                                code: number;
                                message: string;
                            };
                        } | {
                            /** @enum {string} */
                            kind: "card";
                            chain: string;
                            contract: string;
                            /** @description null for a contract that is not one of this service */
                            nft_id: number | null;
                            card_id: number;
                            card_name: string | null;
                            /** @description the card's BApp, for a contract of this service */
                            bapp_name: string | null;
                            direction: "sent" | "received";
                            counterparty: {
                                /** @description lower-case; the zero address for a mint */
                                address: string;
                                /** @description a member, a person whose wallet the service keeps, a BApp, "a claim link"; null when unknown */
                                name: string | null;
                                kind: "member" | "person" | "bapp" | "claim_link" | "operator" | "unknown";
                            };
                            tx_hash: string;
                            state: "pending" | "mined" | "failed";
                            /** @description epoch seconds: the block, or when the send was signed while pending */
                            time: number;
                        } | {
                            kind: "coin" | "token" | "test_coins";
                            chain: string;
                            /** @description the chain as people know it */
                            chain_name: string;
                            /** @description the ERC-20 contract; null for coins */
                            token: string | null;
                            symbol: string | null;
                            decimals: number;
                            /** @description smallest units, decimal */
                            units: string;
                            direction: "sent" | "received";
                            counterparty: {
                                /** @description lower-case; the zero address for a mint */
                                address: string;
                                /** @description a member, a person whose wallet the service keeps, a BApp, "a claim link"; null when unknown */
                                name: string | null;
                                kind: "member" | "person" | "bapp" | "claim_link" | "operator" | "unknown";
                            };
                            tx_hash: string | null;
                            state: "pending" | "mined" | "failed";
                            /** @description epoch seconds: when it was sent */
                            time: number;
                        } | {
                            /** @enum {string} */
                            kind: "claim";
                            claim_id: string;
                            chain: string;
                            nft_id: number;
                            card_id: number;
                            card_name: string | null;
                            bapp_name: string | null;
                            /** @description epoch seconds: when it was claimed */
                            time: number;
                        })[];
                        /** @description '' on the last page */
                        next_cursor: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppTransfersQuote: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: string;
                    /** @description an ERC-20 contract; absent or null: the chain's coin */
                    token?: string | null;
                    /** @description whole coins or tokens, decimal (`1.5`) */
                    amount: string;
                    to_address?: string;
                    to_person?: {
                        name: string;
                        phone: string;
                        /** @description ISO 3166-1 alpha-2 region of a national phone number (`010-1234-5678` with KR); default `phoneDefaultCountry` */
                        phone_country?: string;
                    };
                };
            };
        };
        responses: {
            /** @description The send can be paid; what it costs */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chain: string;
                        /** @description the chain's coin, which pays the fee */
                        ticker: string;
                        /** @description the chain's coin decimals */
                        decimals: number;
                        token: {
                            contract: string;
                            symbol: string | null;
                            decimals: number;
                        } | null;
                        /** @description where it goes (a person: their member wallet, or the wallet kept for them) */
                        to_address: string;
                        /** @description the amount in smallest units, decimal */
                        units: string;
                        /** @description the likely fee, wei: estimated gas times the gas price now */
                        fee: string;
                        /** @description the most the fee may cost, wei: what the balance must cover */
                        max_fee: string;
                        /** @description the coin balance now, wei */
                        balance: string;
                        /** @description the token balance now, smallest units */
                        token_balance: string | null;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppTransfers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    chain: string;
                    /** @description an ERC-20 contract; absent or null: the chain's coin */
                    token?: string | null;
                    /** @description whole coins or tokens, decimal (`1.5`) */
                    amount: string;
                    to_address?: string;
                    to_person?: {
                        name: string;
                        phone: string;
                        /** @description ISO 3166-1 alpha-2 region of a national phone number (`010-1234-5678` with KR); default `phoneDefaultCountry` */
                        phone_country?: string;
                    };
                    pin: string;
                    /** @description one per send the member means: a retry with the same key and body answers the same transaction; another body with it is 4090 */
                    idempotency_key: string;
                };
            };
        };
        responses: {
            /** @description Sent; the transaction is mined */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the mined transaction */
                        hash: string;
                        chain: string;
                        token: string | null;
                        to_address: string;
                        units: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppClaimsClaimIdView: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                claim_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    secret: string;
                };
            };
        };
        responses: {
            /** @description The card the link gives and whether it is still claimable */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        claim_id: string;
                        chain: string;
                        nft_id: number;
                        card_id: number;
                        contract_address: string;
                        card_uri: string;
                        /** @description the card's name */
                        name: string;
                        /** @description the partner's service name */
                        partner: string;
                        status: "in_escrow" | "claimed" | "not_in_escrow";
                        claimed_to: string | null;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    postV2WalletAppClaimsClaimIdClaim: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                claim_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    secret: string;
                };
            };
        };
        responses: {
            /** @description The claimed card and the transfer transaction */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        claim_id: string;
                        chain: string;
                        nft_id: number;
                        card_id: number;
                        contract_address: string;
                        card_uri: string;
                        /** @description the card's name */
                        name: string;
                        /** @description the partner's service name */
                        partner: string;
                        status: "in_escrow" | "claimed" | "not_in_escrow";
                        claimed_to: string | null;
                        tx_hash: string;
                    };
                };
            };
            /** @description refused: the registry body, or the keyed body of a request key in error */
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
            401: {
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
            /** @description an error of the registry */
            403: {
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
            /** @description an error of the registry */
            404: {
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
            /** @description another operation on this card is in progress (4209): nothing was signed; try again once it has answered */
            409: {
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
            /** @description an error of the registry */
            429: {
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
            /** @description an error of the registry */
            503: {
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
    getV2MetadataNftIdCardId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                nft_id: number;
                card_id: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The card's metadata document */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "name": "Member card",
                     *       "description": "A card for members",
                     *       "image": "https://wallet.example.com/v2/files/0b6c6a3e-5b4e-4c1e-9f57-3f1f4c7a2d11.png",
                     *       "nft_id": 1,
                     *       "card_id": 7,
                     *       "attributes": [
                     *         {
                     *           "trait_type": "level",
                     *           "value": "gold"
                     *         }
                     *       ],
                     *       "sendable": false,
                     *       "layout": "general"
                     *     }
                     */
                    "application/json": {
                        name: string;
                        description: string;
                        image: string;
                        nft_id: number;
                        card_id: number;
                        animation_url?: string;
                        /** @description RGB hex without # */
                        background_color?: string;
                        /** @description external_link, as ERC-721 names it */
                        external_url?: string;
                        attributes?: {
                            trait_type: string;
                            value: string;
                        }[];
                        sendable?: boolean;
                        send_friend_only?: boolean;
                        group_name?: string;
                        group_icon?: string;
                        hashtags?: string[];
                        layout?: "general" | "horizontal" | "vertical";
                        external_link?: string;
                        custom_links?: {
                            display_name: string;
                            value: string;
                        }[];
                        /** @description URL of the public QR code image */
                        qr_code?: string;
                        /** @description URL of the public bar code image */
                        bar_code?: string;
                        status_url?: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description an error of the registry */
            400: {
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
            /** @description an error of the registry */
            404: {
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
