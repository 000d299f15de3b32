// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @title CardNFT
/// @notice Cards a partner issues to its users. The partner (contract owner) is the only minter.
/// Cards minted as non-sendable can only leave the partner or the escrow contract, so a user
/// who received one can keep or burn it but not pass it on.
/// @dev A standard ERC-721 (OpenZeppelin) whose batch mints write no per-card storage. The
/// recipients of a batch are written once, packed 20 bytes each, as the code of a data contract
/// (SSTORE2: code costs 200 gas a byte, a storage slot 20,000); card `first + i` belongs to the
/// i-th address of its batch until it first moves. Every later owner is written to storage
/// (`_ownerRecords`) on transfer or burn and takes precedence. A balance is the number of times
/// the address appears in the batches plus a signed adjustment that transfers, burns and
/// single-card mints write. Each card still gets its own `Transfer` event from the zero address.
///
/// The data contracts are the only contracts this one creates, so batch k's is at the CREATE
/// address of nonce k + 1 and is computed, not stored; storage keeps 64 bits per batch (its
/// first id and whether its addresses are sorted), four batches a slot.
///
/// Views: `ownerOf` of a card that never moved finds its batch through `_bucketBatches` (a
/// binary search over the few batches that share its 256-id bucket, whatever the number of
/// batches) and reads 20 bytes of the batch's code. `balanceOf` visits every batch: a binary
/// search in batches minted in ascending address order, a scan of the others.
///
/// Token URIs are `baseURI + tokenId`, so minting stores no per-token metadata. Mints call no
/// receiver hook (like `_mint`): recipients are custodial accounts.
contract CardNFT is ERC721, ERC721Burnable, Ownable {
    using BitMaps for BitMaps.BitMap;
    using Strings for uint256;

    /// @dev ERC-4906 interface id, see https://eips.ethereum.org/EIPS/eip-4906.
    bytes4 private constant _ERC4906_INTERFACE_ID = 0x49064906;

    /// @dev keccak256("Transfer(address,address,uint256)").
    bytes32 private constant _TRANSFER_TOPIC = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef;

    /// @dev Most addresses in one data contract: (24,576-byte code size limit - 1 STOP byte) / 20.
    /// A longer mint is written as several batches.
    uint256 private constant _MAX_BATCH_ADDRESSES = 1228;

    /// @dev In an owner record: the owner is written (the low 160 bits; zero once burned).
    uint256 private constant _OWNER_WRITTEN = 1 << 160;

    /// @dev In a batch entry (64 bits): the batch's addresses are in ascending order. The
    /// lower 63 bits are the id of the batch's first card.
    uint256 private constant _BATCH_SORTED = 1 << 63;
    uint256 private constant _BATCH_FIRST_ID = _BATCH_SORTED - 1;

    /// @notice The escrow contract allowed to move non-sendable cards (address(0) if none).
    address public immutable escrow;

    struct MintState {
        /// Id of the next card to mint; ids start at 1.
        uint64 nextTokenId;
        /// Number of batches (data contracts) written.
        uint64 batchCount;
    }

    /// @dev Both counters in one slot: a mint reads and writes it once.
    MintState private _mintState = MintState({nextTokenId: 1, batchCount: 0});

    /// @dev Batch entries, four per slot: batch k's is bits 64*(k%4) .. 64*(k%4)+63 of slot k/4.
    /// A batch's ids run from its first id up to the next batch's (single-card mints in between
    /// write their owners, so no lookup reaches the batches for them).
    mapping(uint256 group => uint256) private _batchEntries;

    /// @dev For bucket b (ids b*256 .. b*256+255): the number of batches that ended before id
    /// b*256, written when that id is minted. The batch of any card of the bucket is at or after
    /// it, and at or before the one of bucket b+1. Bucket 0 needs no entry (its value is 0).
    mapping(uint256 bucket => uint256) private _bucketBatches;

    /// @dev Owners written by transfers, burns and single-card mints: `_OWNER_WRITTEN | owner`;
    /// zero where the owner is still the card's batch entry.
    mapping(uint256 tokenId => uint256) private _ownerRecords;

    /// @dev Balance minus the number of times the address appears in the batches.
    mapping(address owner => int256) private _balanceAdjustments;

    /// @dev A set bit means the card is non-sendable. Sendable cards write nothing here.
    BitMaps.BitMap private _nonSendable;

    string private _baseTokenURI;

    /// @dev ERC-4906: metadata of a range of tokens changed.
    event BatchMetadataUpdate(uint256 _fromTokenId, uint256 _toTokenId);

    /// @notice `mintBatch` was called with no recipients.
    error EmptyBatch();

    /// @notice `tokenId` is non-sendable and its holder is neither the owner nor the escrow.
    error CardNotSendable(uint256 tokenId);

    /// @notice Writing a batch's data contract failed.
    error BatchNotWritten();

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

    /// @notice Mints one card to each address in `to`, with sequential ids. Addresses may repeat
    /// and come in any order; in ascending order (repeats next to each other) `balanceOf` finds
    /// them faster.
    /// @param to Recipients; the i-th recipient gets token `firstTokenId + i`.
    /// @param sendable Whether holders may transfer the minted cards.
    /// @return firstTokenId Id of the card minted to `to[0]`.
    function mintBatch(address[] calldata to, bool sendable) external onlyOwner returns (uint256 firstTokenId) {
        uint256 count = to.length;
        if (count == 0) revert EmptyBatch();

        MintState memory state = _mintState;
        firstTokenId = state.nextTokenId;
        uint256 batchCount = state.batchCount;
        if (count == 1) {
            // One card: an owner and a balance write cost less than a data contract and its record.
            _recordBucketStarts(firstTokenId, firstTokenId + 1, batchCount);
            _mint(to[0], firstTokenId);
        } else {
            uint256 offset;
            while (offset < count) {
                uint256 size = count - offset;
                if (size > _MAX_BATCH_ADDRESSES) size = _MAX_BATCH_ADDRESSES;
                uint256 first = firstTokenId + offset;
                _recordBucketStarts(first, first + size, batchCount);
                _batchEntries[batchCount >> 2] |= _writeBatch(to[offset:offset + size], first, batchCount) << ((batchCount & 3) << 6);
                unchecked {
                    ++batchCount;
                    offset += size;
                }
            }
        }
        uint256 end = firstTokenId + count;
        // Ids must fit the 63 bits of a batch entry.
        if (end > _BATCH_FIRST_ID) revert SafeCast.SafeCastOverflowedUintDowncast(63, end);
        _mintState = MintState({nextTokenId: uint64(end), batchCount: uint64(batchCount)});

        if (!sendable) _markNonSendable(firstTokenId, count);
    }

    /// @notice Replaces the token URI prefix of all cards.
    /// @dev Emits ERC-4906 `BatchMetadataUpdate` over the whole id range so indexers refresh.
    function setBaseURI(string calldata baseURI_) external onlyOwner {
        _baseTokenURI = baseURI_;
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    /// @notice Whether the holder of `tokenId` may transfer it. Reverts for nonexistent cards.
    function isSendable(uint256 tokenId) external view returns (bool) {
        _requireOwned(tokenId);
        return !_nonSendable.get(tokenId);
    }

    /// @notice Id the next minted card will get.
    function nextTokenId() external view returns (uint256) {
        return _mintState.nextTokenId;
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

    /// @notice ERC-165; additionally reports ERC-4906 (metadata update events).
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return interfaceId == _ERC4906_INTERFACE_ID || super.supportsInterface(interfaceId);
    }

    /// @notice Number of cards `owner` holds. Reverts for the zero address.
    /// @dev Visits every batch: its cost grows with the number of batches (see the contract notes).
    function balanceOf(address owner) public view override returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        int256 balance = _balanceAdjustments[owner];
        uint256 batchCount = _mintState.batchCount;
        uint256 entries;
        for (uint256 batch; batch < batchCount; ) {
            if (batch & 3 == 0) entries = _batchEntries[batch >> 2];
            balance += int256(_occurrences(batch, (entries >> ((batch & 3) << 6)) & type(uint64).max, owner));
            unchecked {
                ++batch;
            }
        }
        // Cannot be negative: every -1 of a transfer or burn follows a card the address held.
        return uint256(balance);
    }

    /// @dev The written owner if there is one (zero once burned), else the card's batch entry;
    /// zero for ids never minted.
    function _ownerOf(uint256 tokenId) internal view override returns (address) {
        uint256 record = _ownerRecords[tokenId];
        if (record != 0) return address(uint160(record));
        MintState memory state = _mintState;
        if (tokenId == 0 || tokenId >= state.nextTokenId) return address(0);

        // Single-card mints write their owner, so an id without a record lies in a batch.
        uint256 batch = _batchOf(tokenId, state);
        return _addressAt(_dataContract(batch), tokenId - (_batchEntry(batch) & _BATCH_FIRST_ID));
    }

    /// @dev OpenZeppelin's `_update` on this contract's owner and balance storage, plus the
    /// non-sendable rule: mints (from == 0) and burns (to == 0) always pass. The rule is checked
    /// after the state change, which a revert undoes, so the previous holder is read only once.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = _ownerOf(tokenId);
        if (auth != address(0)) _checkAuthorized(from, auth, tokenId);
        if (from != address(0)) {
            // Clear the approval without an event, as OpenZeppelin does.
            _approve(address(0), tokenId, address(0), false);
            unchecked {
                _balanceAdjustments[from] -= 1;
            }
        }
        if (to != address(0)) {
            unchecked {
                _balanceAdjustments[to] += 1;
            }
        }
        _ownerRecords[tokenId] = _OWNER_WRITTEN | uint256(uint160(to));
        emit Transfer(from, to, tokenId);

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

    /// @dev Kept consistent with this contract's balances (OpenZeppelin's own counter is unused).
    function _increaseBalance(address account, uint128 value) internal override {
        unchecked {
            _balanceAdjustments[account] += int256(uint256(value));
        }
    }

    /// @dev Writes `to` as the data contract of `batch` (code: a STOP byte, then the addresses
    /// packed 20 bytes each) and emits one `Transfer` per card from `first` on. Returns the
    /// batch entry. Reverts like `_mint` on the zero address, and without data on a malformed
    /// address word.
    function _writeBatch(address[] calldata to, uint256 first, uint256 batch) private returns (uint256 entry) {
        uint256 sorted = _BATCH_SORTED;
        address pointer;
        assembly ("memory-safe") {
            let count := to.length
            let codeSize := add(1, mul(count, 20))
            let initCode := mload(0x40)
            // Creation code: PUSH2 codeSize, DUP1, PUSH1 10, PUSH0, CODECOPY, PUSH0, RETURN: it
            // returns the code that follows its 10 bytes. Then the STOP byte (0x00) of that code.
            mstore(initCode, shl(168, or(shl(64, or(0x610000, codeSize)), 0x80600a5f395ff300)))
            let cursor := add(initCode, 11)
            let previous := 0
            let tokenId := first
            for { let i := 0 } lt(i, count) { i := add(i, 1) } {
                let recipient := calldataload(add(to.offset, shl(5, i)))
                if shr(160, recipient) { revert(0, 0) }
                if iszero(recipient) {
                    // ERC721InvalidReceiver(address(0))
                    mstore(0x00, 0x64a0ae92)
                    mstore(0x20, 0)
                    revert(0x1c, 0x24)
                }
                if lt(recipient, previous) { sorted := 0 }
                previous := recipient
                // 32 bytes written, the next address overwrites the 12 zero bytes after this one.
                mstore(cursor, shl(96, recipient))
                cursor := add(cursor, 20)
                log4(0, 0, _TRANSFER_TOPIC, 0, recipient, tokenId)
                tokenId := add(tokenId, 1)
            }
            pointer := create(0, initCode, add(10, codeSize))
        }
        if (pointer == address(0) || pointer != _dataContract(batch)) revert BatchNotWritten();
        entry = sorted | first;
    }

    /// @dev Writes the bucket entries of the buckets whose first id is in [first, end): `batch`
    /// batches end before them. Zero entries are not written (unwritten slots read as zero).
    function _recordBucketStarts(uint256 first, uint256 end, uint256 batch) private {
        if (batch == 0) return;
        for (uint256 bucket = (first + 255) >> 8; (bucket << 8) < end; ++bucket) {
            _bucketBatches[bucket] = batch;
        }
    }

    /// @dev Index of the batch holding `tokenId`, an id minted in a batch: the last batch that
    /// starts at or before it, searched between the bucket entries around the id.
    function _batchOf(uint256 tokenId, MintState memory state) private view returns (uint256 low) {
        uint256 bucket = tokenId >> 8;
        low = _bucketBatches[bucket];
        uint256 high = state.batchCount; // exclusive
        if ((bucket + 1) << 8 < state.nextTokenId) {
            uint256 bound = _bucketBatches[bucket + 1] + 1;
            if (bound < high) high = bound;
        }
        while (high - low > 1) {
            uint256 middle = (low + high) >> 1;
            if ((_batchEntry(middle) & _BATCH_FIRST_ID) <= tokenId) low = middle;
            else high = middle;
        }
    }

    /// @dev The 64-bit entry of `batch`.
    function _batchEntry(uint256 batch) private view returns (uint256) {
        return (_batchEntries[batch >> 2] >> ((batch & 3) << 6)) & type(uint64).max;
    }

    /// @dev Address of the data contract of `batch`: what CREATE gives for this contract's nonce
    /// `batch + 1` (a contract's nonce starts at 1), keccak256(rlp([address(this), nonce]))[12:].
    function _dataContract(uint256 batch) private view returns (address pointer) {
        assembly ("memory-safe") {
            let nonce := add(batch, 1)
            // RLP list header, then 0x94 (a 20-byte string) and the address, then the nonce: one
            // byte below 0x80, else 0x80 + its length in bytes and its bytes.
            let nonceBytes := 0
            if gt(nonce, 0x7f) {
                for { let rest := nonce } rest { rest := shr(8, rest) } { nonceBytes := add(nonceBytes, 1) }
            }
            switch nonceBytes
            case 0 {
                mstore(0x00, or(or(shl(248, 0xd6), shl(240, 0x94)), or(shl(80, address()), shl(72, nonce))))
            }
            default {
                mstore(
                    0x00,
                    or(
                        or(shl(248, add(0xd6, nonceBytes)), shl(240, 0x94)),
                        or(or(shl(80, address()), shl(72, add(0x80, nonceBytes))), shl(mul(8, sub(9, nonceBytes)), nonce))
                    )
                )
            }
            pointer := and(keccak256(0x00, add(23, nonceBytes)), 0xffffffffffffffffffffffffffffffffffffffff)
        }
    }

    /// @dev The `position`-th address of a data contract.
    function _addressAt(address pointer, uint256 position) private view returns (address entry) {
        assembly ("memory-safe") {
            extcodecopy(pointer, 0x00, add(1, mul(position, 20)), 0x20)
            entry := shr(96, mload(0x00))
        }
    }

    /// @dev How many times `owner` appears in `batch` (of entry `entry`): a binary search for its
    /// first place, then a count of its repeats, in a sorted batch; a scan in another.
    function _occurrences(uint256 batch, uint256 entry, address owner) private view returns (uint256 found) {
        address pointer = _dataContract(batch);
        bool sorted = (entry & _BATCH_SORTED) != 0;
        assembly ("memory-safe") {
            let count := div(sub(extcodesize(pointer), 1), 20)
            switch sorted
            case 1 {
                let low := 0
                let high := count
                for {} lt(low, high) {} {
                    let middle := shr(1, add(low, high))
                    extcodecopy(pointer, 0x00, add(1, mul(middle, 20)), 0x20)
                    switch lt(shr(96, mload(0x00)), owner)
                    case 1 { low := add(middle, 1) }
                    default { high := middle }
                }
                for {} lt(low, count) { low := add(low, 1) } {
                    extcodecopy(pointer, 0x00, add(1, mul(low, 20)), 0x20)
                    if iszero(eq(shr(96, mload(0x00)), owner)) { break }
                    found := add(found, 1)
                }
            }
            default {
                // Scratch memory past the free pointer, not allocated: nothing else uses it here.
                let entries := mload(0x40)
                extcodecopy(pointer, entries, 1, mul(count, 20))
                let end := add(entries, mul(count, 20))
                for { let cursor := entries } lt(cursor, end) { cursor := add(cursor, 20) } {
                    found := add(found, eq(shr(96, mload(cursor)), owner))
                }
            }
        }
    }

    /// @dev Sets the bits of `count` ids from `firstTokenId` one 256-bit bucket at a time,
    /// instead of one storage read-modify-write per token (BitMaps has no range setter).
    function _markNonSendable(uint256 firstTokenId, uint256 count) private {
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
    }
}
