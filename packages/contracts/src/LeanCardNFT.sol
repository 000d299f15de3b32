// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {CardLedger} from "./CardLedger.sol";

/// @title LeanCardNFT
/// @notice The card contract with the cheapest mint: a `CardLedger` that writes nothing per
/// recipient at mint, so `balanceOf` counts the holder's places in every batch and its cost grows
/// with the number of batches (about 7,000 gas each). For collections that stay small (a few
/// hundred batches) or whose balances nobody reads on chain; `CardNFT` is the default.
contract LeanCardNFT is CardLedger {
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
        return false;
    }
}
