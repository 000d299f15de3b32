// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @title NaiveCardNFT
/// @notice Benchmark baseline, not deployed by the service: the common way of issuing cards,
/// one transaction per card, each with its own stored URI. `CardNFT` is measured against it.
contract NaiveCardNFT is ERC721URIStorage, Ownable {
    uint256 private _nextTokenId;

    /// @param owner_ Owner of the contract and the only account allowed to mint.
    constructor(address owner_) ERC721("Naive Card", "NCARD") Ownable(owner_) {}

    /// @notice Mints one card to `to` with its own token URI.
    /// @return tokenId Id of the minted card.
    function mint(address to, string calldata uri) external onlyOwner returns (uint256 tokenId) {
        tokenId = _nextTokenId++;
        _safeMint(to, tokenId);
        _setTokenURI(tokenId, uri);
    }
}
