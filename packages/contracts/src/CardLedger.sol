// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {BitMaps} from "@openzeppelin/contracts/utils/structs/BitMaps.sol";
import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @title CardLedger
/// @notice Cards a partner issues to its users. The partner (contract owner) is the only minter.
/// Cards minted as non-sendable are locked (ERC-5192): they can only leave the partner or the
/// escrow contract, so a user who received one can keep or burn it but not pass it on, and no
/// one can be approved for it.
/// @dev A standard ERC-721 (OpenZeppelin) whose batch mints write no per-card storage. The
/// recipients of a batch are written once, packed 20 bytes each, as the code of a data contract
/// (SSTORE2: code costs 200 gas a byte, a storage slot 20,000); card `first + i` belongs to the
/// i-th address of its batch until it first moves. Every later owner is written to storage
/// (`_ownerRecords`) on transfer or burn and takes precedence. Each card still gets its own
/// `Transfer` event from the zero address.
///
/// Each batch's storage slot holds its data contract's address (as CREATE returned it, so no
/// chain's address rule is assumed), its first id, its size and whether its addresses are sorted.
/// `ownerOf` of a card that never moved finds its batch from its 256-id bucket's two slots
/// (`_buckets`: how many batches started at or before the bucket's first id; `_bucketStarts`: a
/// bit for each id inside the bucket where a batch starts), reads that batch's slot and 20 bytes
/// of its code: four storage reads and one code read, whatever the number or the size of the
/// batches.
///
/// Balances come in two ledgers, chosen by the deployed contract (`_countsBalances`):
/// - `CardNFT` counts them at mint: one counter per recipient, so `balanceOf` is one storage
///   read however many batches there are; a recipient's first card writes a new slot.
/// - `LeanCardNFT` does not: a balance is the number of times the address appears in the batches
///   plus a signed adjustment that transfers, burns and single-card mints write, so a mint writes
///   nothing per recipient and `balanceOf` visits every batch.
///
/// Token URIs are `baseURI + tokenId`, so minting stores no per-token metadata. Mints call no
/// receiver hook (like `_mint`): recipients are custodial accounts.
abstract contract CardLedger is ERC721, ERC721Burnable, Ownable {
    using BitMaps for BitMaps.BitMap;
    using Strings for uint256;

    /// @dev ERC-4906 interface id, see https://eips.ethereum.org/EIPS/eip-4906.
    bytes4 private constant _ERC4906_INTERFACE_ID = 0x49064906;

    /// @dev ERC-5192 interface id (`locked(uint256)`), see https://eips.ethereum.org/EIPS/eip-5192.
    bytes4 private constant _ERC5192_INTERFACE_ID = 0xb45a3c0e;

    /// @dev keccak256("Transfer(address,address,uint256)").
    bytes32 private constant _TRANSFER_TOPIC = 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef;

    /// @dev keccak256("Locked(uint256)").
    bytes32 private constant _LOCKED_TOPIC = 0x032bc66be43dbccb7487781d168eb7bda224628a3b2c3388bdf69b532a3a1611;

    /// @dev Most addresses in one data contract: (24,576-byte code size limit - 1 STOP byte) / 20.
    /// A longer mint is written as several batches.
    uint256 private constant _MAX_BATCH_ADDRESSES = 1228;

    /// @dev In an owner record: the owner is written (the low 160 bits; zero once burned).
    uint256 private constant _OWNER_WRITTEN = 1 << 160;

    /// @dev A batch's slot: its data contract's address in the low 160 bits, the id of its first
    /// card in the 64 bits above, its number of cards in the 31 bits above those, and this flag
    /// when its addresses are in ascending order.
    uint256 private constant _BATCH_SORTED = 1 << 255;
    uint256 private constant _BATCH_FIRST_ID_SHIFT = 160;
    uint256 private constant _BATCH_SIZE_SHIFT = 224;

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

    /// @dev One slot per batch (see `_BATCH_SORTED`). A batch's ids run from its first id up to
    /// the next batch's (single-card mints in between write their owners, so no lookup reaches
    /// the batches for them).
    mapping(uint256 batch => uint256) private _batches;

    /// @dev For bucket b (ids b*256 .. b*256+255): one more than the number of batches that
    /// started at or before id b*256 (zero: that id is not minted yet), written when it is minted.
    /// Id 0 is never minted: bucket 0's slot reads as written with no batch started before it.
    mapping(uint256 bucket => uint256) private _buckets;

    /// @dev For bucket b: bit p (1 to 255) is set when a batch starts at id b*256 + p. A card's
    /// batch is then counted, not searched: the batches started at or before the bucket plus the
    /// bits up to the card's position. One slot a bucket however small its batches are, so every
    /// card's lookup costs the same, and what a card's holder was quoted for a move does not
    /// change as later batches start.
    mapping(uint256 bucket => uint256) private _bucketStarts;

    /// @dev Owners written by transfers, burns and single-card mints: `_OWNER_WRITTEN | owner`;
    /// zero where the owner is still the card's batch entry.
    mapping(uint256 tokenId => uint256) private _ownerRecords;

    /// @dev With balances counted at mint, the balance; otherwise the balance minus the number
    /// of times the address appears in the batches.
    mapping(address owner => int256) private _balanceAdjustments;

    /// @dev A set bit means the card is non-sendable (locked). Sendable cards write nothing here.
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

    /// @dev Whether mints count balances (see the contract notes). A constant of the deployed
    /// contract, so the compiler drops the other ledger's code.
    function _countsBalances() internal pure virtual returns (bool);

    /// @notice Mints one card to each address in `to`, with sequential ids. Addresses may repeat
    /// and come in any order (in ascending order `LeanCardNFT.balanceOf` finds them faster).
    /// Non-sendable cards are locked: one ERC-5192 `Locked` event each, after the transfers.
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
            _mintOne(to[0], firstTokenId);
        } else {
            uint256 offset;
            while (offset < count) {
                uint256 size = count - offset;
                if (size > _MAX_BATCH_ADDRESSES) size = _MAX_BATCH_ADDRESSES;
                uint256 first = firstTokenId + offset;
                // Batches 0 .. batchCount have started at or before the buckets that start in it.
                _recordBucketStarts(first, first + size, batchCount + 1);
                _recordBatchStart(first);
                _batches[batchCount] = _writeBatch(to[offset:offset + size], first);
                unchecked {
                    ++batchCount;
                    offset += size;
                }
            }
        }
        uint256 end = firstTokenId + count;
        if (end > type(uint64).max) revert SafeCast.SafeCastOverflowedUintDowncast(64, end);
        _mintState = MintState({nextTokenId: uint64(end), batchCount: uint64(batchCount)});

        if (!sendable) _lock(firstTokenId, count);
    }

    /// @notice Replaces the token URI prefix of all cards.
    /// @dev Emits ERC-4906 `BatchMetadataUpdate` over the whole id range so indexers refresh.
    function setBaseURI(string calldata baseURI_) external onlyOwner {
        _baseTokenURI = baseURI_;
        emit BatchMetadataUpdate(1, type(uint256).max);
    }

    /// @notice ERC-5192: whether `tokenId` is locked, i.e. non-sendable. Its holder cannot
    /// transfer it unless the holder is the partner or the escrow (which issue cards), and no
    /// one can be approved for it. Reverts for nonexistent cards.
    function locked(uint256 tokenId) external view returns (bool) {
        _requireOwned(tokenId);
        return _nonSendable.get(tokenId);
    }

    /// @notice Whether the holder of `tokenId` may transfer it (`!locked(tokenId)`). Reverts for
    /// nonexistent cards.
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

    /// @notice ERC-165; additionally reports ERC-4906 (metadata update events) and ERC-5192
    /// (locked cards).
    function supportsInterface(bytes4 interfaceId) public view override returns (bool) {
        return
            interfaceId == _ERC4906_INTERFACE_ID ||
            interfaceId == _ERC5192_INTERFACE_ID ||
            super.supportsInterface(interfaceId);
    }

    /// @notice OpenZeppelin's `approve`, refused (`CardNotSendable`) for a locked card unless it
    /// clears the approval (`to == address(0)`). The existence and caller checks come first.
    function approve(address to, uint256 tokenId) public override {
        super.approve(to, tokenId);
        if (to != address(0) && _nonSendable.get(tokenId)) revert CardNotSendable(tokenId);
    }

    /// @notice Number of cards `owner` holds. Reverts for the zero address.
    /// @dev One storage read when mints count balances; otherwise it visits every batch and its
    /// cost grows with the number of batches (see the contract notes).
    function balanceOf(address owner) public view override returns (uint256) {
        if (owner == address(0)) revert ERC721InvalidOwner(address(0));
        int256 balance = _balanceAdjustments[owner];
        if (!_countsBalances()) {
            uint256 batchCount = _mintState.batchCount;
            for (uint256 batch; batch < batchCount; ) {
                balance += int256(_occurrences(_batches[batch], owner));
                unchecked {
                    ++batch;
                }
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

        // Single-card mints write their owner, so a minted id without a record lies in a batch:
        // the last batch that starts at or before it.
        uint256 bucket = tokenId >> 8;
        uint256 slot = _buckets[bucket];
        if (slot == 0) {
            if (bucket != 0) return address(0); // the bucket's first id is not minted yet
            slot = 1;
        }
        // The batches started at or before the bucket, and those started inside it up to the card.
        uint256 upToCard = type(uint256).max >> (255 - (tokenId & 0xff));
        uint256 batch = slot - 1 + _bitCount(_bucketStarts[bucket] & upToCard);
        if (batch == 0) return address(0); // before the first batch
        return _ownerInBatch(tokenId, _batches[batch - 1]);
    }

    /// @dev The owner of `tokenId` if the batch whose slot is `entry` holds it, else zero (an id
    /// between batches that was never minted).
    function _ownerInBatch(uint256 tokenId, uint256 entry) private view returns (address) {
        uint256 first = _firstIdOf(entry);
        if (tokenId < first || tokenId >= first + _sizeOf(entry)) return address(0);
        return _addressAt(address(uint160(entry)), tokenId - first);
    }

    /// @dev The number of set bits of `x` (at most 255 here: bit 0 of a bucket is never set), by
    /// adding them pairwise, then in fours, in bytes, and the 32 bytes at once in the top byte.
    function _bitCount(uint256 x) private pure returns (uint256) {
        unchecked {
            x -= (x >> 1) & 0x5555555555555555555555555555555555555555555555555555555555555555;
            x = (x & 0x3333333333333333333333333333333333333333333333333333333333333333) + ((x >> 2) & 0x3333333333333333333333333333333333333333333333333333333333333333);
            x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f;
            return (x * 0x0101010101010101010101010101010101010101010101010101010101010101) >> 248;
        }
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

    /// @dev OpenZeppelin's `_mint` for an id known to be new (the next one): writes its owner and
    /// the recipient's balance without looking the id up first.
    function _mintOne(address to, uint256 tokenId) private {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        unchecked {
            _balanceAdjustments[to] += 1;
        }
        _ownerRecords[tokenId] = _OWNER_WRITTEN | uint256(uint160(to));
        emit Transfer(address(0), to, tokenId);
    }

    /// @dev Kept consistent with this contract's balances (OpenZeppelin's own counter is unused).
    function _increaseBalance(address account, uint128 value) internal override {
        unchecked {
            _balanceAdjustments[account] += int256(uint256(value));
        }
    }

    /// @dev Writes `to` as a data contract (code: a STOP byte, then the addresses packed 20 bytes
    /// each), emits one `Transfer` per card from `first` on and, when balances are counted, adds
    /// one to each recipient's. Returns the batch's slot. Reverts like `_mint` on the zero
    /// address, and without data on a malformed address word.
    function _writeBatch(address[] calldata to, uint256 first) private returns (uint256 entry) {
        uint256 sorted = _BATCH_SORTED;
        bool counts = _countsBalances();
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
                if counts {
                    // _balanceAdjustments[recipient] += 1 (a repeat in the batch finds the slot warm).
                    mstore(0x00, recipient)
                    mstore(0x20, _balanceAdjustments.slot)
                    let slot := keccak256(0x00, 0x40)
                    sstore(slot, add(sload(slot), 1))
                }
            }
            pointer := create(0, initCode, add(10, codeSize))
        }
        if (pointer == address(0)) revert BatchNotWritten();
        entry = sorted | (to.length << _BATCH_SIZE_SHIFT) | (first << _BATCH_FIRST_ID_SHIFT) | uint256(uint160(pointer));
    }

    /// @dev Writes the slots of the buckets whose first id is in [first, end): `started` batches
    /// started at or before them (see `_buckets`).
    function _recordBucketStarts(uint256 first, uint256 end, uint256 started) private {
        for (uint256 bucket = (first + 255) >> 8; (bucket << 8) < end; ++bucket) {
            _buckets[bucket] = started + 1;
        }
    }

    /// @dev Notes in its bucket's bits a batch that starts at `first` inside the bucket (one that
    /// starts on the bucket's first id is counted by `_recordBucketStarts`).
    function _recordBatchStart(uint256 first) private {
        uint256 position = first & 0xff;
        if (position == 0) return;
        _bucketStarts[first >> 8] |= 1 << position;
    }

    /// @dev The id of the first card of the batch whose slot is `entry`.
    function _firstIdOf(uint256 entry) private pure returns (uint256) {
        return (entry >> _BATCH_FIRST_ID_SHIFT) & type(uint64).max;
    }

    /// @dev The number of cards of the batch whose slot is `entry`.
    function _sizeOf(uint256 entry) private pure returns (uint256) {
        return (entry >> _BATCH_SIZE_SHIFT) & ((1 << 31) - 1);
    }

    /// @dev The `position`-th address of a data contract.
    function _addressAt(address pointer, uint256 position) private view returns (address entry) {
        assembly ("memory-safe") {
            extcodecopy(pointer, 0x00, add(1, mul(position, 20)), 0x20)
            entry := shr(96, mload(0x00))
        }
    }

    /// @dev How many times `owner` appears in the batch whose slot is `entry`: a binary search for
    /// its first place, then a count of its repeats, in a sorted batch; a scan in another.
    function _occurrences(uint256 entry, address owner) private view returns (uint256 found) {
        address pointer = address(uint160(entry));
        bool sorted = (entry & _BATCH_SORTED) != 0;
        uint256 count = _sizeOf(entry);
        assembly ("memory-safe") {
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

    /// @dev Locks `count` cards from `firstTokenId`: sets their bits one 256-bit bucket at a time
    /// (BitMaps has no range setter), then emits ERC-5192 `Locked` for each, in id order.
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
        assembly ("memory-safe") {
            for { let id := firstTokenId } lt(id, end) { id := add(id, 1) } {
                mstore(0x00, id)
                log1(0x00, 0x20, _LOCKED_TOPIC)
            }
        }
    }
}
