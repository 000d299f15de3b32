// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @title PlainCardNFT
/// @notice Test and benchmark baseline, not deployed by the service: the card contract as plain
/// OpenZeppelin ERC-721, with the same functions, rules and errors as `CardNFT` but one owner
/// and one balance write per minted card (`_mint` in a loop). The differential test drives both
/// with the same operations and compares every view; the gas figures compare their mints.
/// @dev Token URIs are `baseURI + tokenId`. Mints use `_mint` rather than `_safeMint`.
/// Non-sendable cards are locked (ERC-5192) as in `CardNFT`.
contract PlainCardNFT is ERC721, ERC721Burnable, Ownable {
    using BitMaps for BitMaps.BitMap;
    using Strings for uint256;

    /// @dev ERC-4906 interface id, see https://eips.ethereum.org/EIPS/eip-4906.
    bytes4 private constant _ERC4906_INTERFACE_ID = 0x49064906;

    /// @dev ERC-5192 interface id (`locked(uint256)`), see https://eips.ethereum.org/EIPS/eip-5192.
    bytes4 private constant _ERC5192_INTERFACE_ID = 0xb45a3c0e;

    /// @notice The escrow contract allowed to move non-sendable cards (address(0) if none).
    address public immutable escrow;

    /// @dev Id of the next card to mint; ids start at 1.
    uint256 private _nextTokenId = 1;

    /// @dev A set bit means the card is non-sendable. Sendable cards write nothing here.
    BitMaps.BitMap private _nonSendable;

    string private _baseTokenURI;

    /// @dev ERC-4906: metadata of a range of tokens changed.
    event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);

    /// @notice ERC-5192: `tokenId` became locked (emitted when a non-sendable card is minted).
    event Locked(uint256 tokenId);

    /// @notice ERC-5192: `tokenId` became unlocked. Cards never unlock; declared by the standard.
    event Unlocked(uint256 tokenId);

    /// @notice `mintBatch` was called with no recipients.
    error EmptyBatch();

    /// @notice `tokenId` is non-sendable: its holder is neither the owner nor the escrow, or an
    /// approval for it was asked.
    error CardNotSendable(uint256 tokenId);

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
    ) ERC721(name_, symbol_) Ownable(owner_) {
        _baseTokenURI = baseURI_;
        escrow = escrow_;
    }

    /// @notice Mints one card to each address in `to`, with sequential ids.
    /// @param to Recipients; the i-th recipient gets token `firstTokenId + i`.
    /// @param sendable Whether holders may transfer the minted cards.
    /// @return firstTokenId Id of the card minted to `to[0]`.
    function mintBatch(address[] calldata to, bool sendable) external onlyOwner returns (uint256 firstTokenId) {
        uint256 count = to.length;
        if (count == 0) revert EmptyBatch();

        firstTokenId = _nextTokenId;
        // The counter is written once per batch instead of once per card.
        _nextTokenId = firstTokenId + count;
        uint256 tokenId = firstTokenId;
        for (uint256 i; i < count; ) {
            _mint(to[i], tokenId);
            // Cannot overflow: `firstTokenId + count` was computed with overflow checks above.
            unchecked {
                ++i;
                ++tokenId;
            }
        }

        if (!sendable) _lock(firstTokenId, count);
    }

    /// @notice Replaces the token URI prefix of all cards.
    /// @dev Emits ERC-4906 `BatchMetadataUpdate` over the whole id range so indexers refresh.
    function setBaseURI(string calldata baseURI_) external onlyOwner {
        _baseTokenURI = baseURI_;
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    /// @notice ERC-5192: whether `tokenId` is locked (non-sendable). Reverts for nonexistent cards.
    function locked(uint256 tokenId) external view returns (bool) {
        _requireOwned(tokenId);
        return _nonSendable.get(tokenId);
    }

    /// @notice Whether the holder of `tokenId` may transfer it. Reverts for nonexistent cards.
    function isSendable(uint256 tokenId) external view returns (bool) {
        _requireOwned(tokenId);
        return !_nonSendable.get(tokenId);
    }

    /// @notice Id the next minted card will get.
    function nextTokenId() external view returns (uint256) {
        return _nextTokenId;
    }

    /// @notice Current token URI prefix.
    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
    }

    /// @notice `baseURI + tokenId`. Reverts for nonexistent cards.
    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        return string.concat(_baseTokenURI, tokenId.toString());
    }

    /// @notice ERC-165; additionally reports ERC-4906 (metadata update events) and ERC-5192.
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return
            interfaceId == _ERC4906_INTERFACE_ID ||
            interfaceId == _ERC5192_INTERFACE_ID ||
            super.supportsInterface(interfaceId);
    }

    /// @notice OpenZeppelin's `approve`, refused for a locked card unless it clears the approval.
    function approve(address to, uint256 tokenId) public override {
        super.approve(to, tokenId);
        if (to != address(0) && _nonSendable.get(tokenId)) revert CardNotSendable(tokenId);
    }

    /// @dev Enforces non-sendability on transfers; mints (from == 0) and burns (to == 0) pass.
    /// The check runs after the state change, which is fine because a revert undoes it, and it
    /// lets us use the previous holder returned by the parent instead of reading it twice.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = super._update(to, tokenId, auth);
        if (
            from != address(0) &&
            to != address(0) &&
            from != escrow &&
            _nonSendable.get(tokenId) &&
            from != owner()
        ) {
            revert CardNotSendable(tokenId);
        }
    }

    /// @dev Locks `count` cards from `firstTokenId`: sets their bits one 256-bit bucket at a time
    /// (BitMaps has no range setter), then emits `Locked` for each, in id order.
    function _lock(uint256 firstTokenId, uint256 count) private {
        uint256 tokenId = firstTokenId;
        uint256 end = firstTokenId + count;
        while (tokenId < end) {
            uint256 bucket = tokenId >> 8;
            uint256 bucketEnd = (bucket + 1) << 8;
            uint256 rangeEnd = end < bucketEnd ? end : bucketEnd;
            uint256 mask;
            unchecked {
                // For a full bucket (width 256) `1 << 256` wraps to 0 and `0 - 1` is all ones.
                mask = ((uint256(1) << (rangeEnd - tokenId)) - 1) << (tokenId & 0xff);
            }
            _nonSendable._data[bucket] |= mask;
            tokenId = rangeEnd;
        }
        for (tokenId = firstTokenId; tokenId < end; ++tokenId) emit Locked(tokenId);
    }
}
