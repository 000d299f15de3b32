// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {CardLedger} from "./CardLedger.sol";

/// @title CardNFT
/// @notice The card contract the service deploys for a partner: a `CardLedger` that counts
/// balances at mint, so `balanceOf` and `ownerOf` cost the same at a million cards as at one.
/// A recipient's first card of the collection writes its balance slot (20,000 gas); see
/// `LeanCardNFT` for the ledger that does not.
contract CardNFT is CardLedger {
    /// @param name_ Collection name.
    /// @param symbol_ Collection symbol.
    /// @param baseURI_ Prefix of every token URI; the token id is appended.
    /// @param owner_ The partner: owner of the contract and the only account allowed to mint.
    /// @param escrow_ Escrow contract allowed to move non-sendable cards, or address(0).
    constructor(
        string memory name_,
        string memory symbol_,
        string memory baseURI_,
        address owner_,
        address escrow_
    ) CardLedger(name_, symbol_, baseURI_, owner_, escrow_) {}

    function _countsBalances() internal pure override returns (bool) {
        return true;
    }
}
