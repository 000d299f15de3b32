// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Receiver} from "@openzeppelin/contracts/token/ERC721/IERC721Receiver.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @title CardEscrow
/// @notice Holds ERC-721 cards behind claim links. A depositor locks cards, each under the hash
/// of a secret; whoever knows the secret can have the card released to an address of their
/// choice. Only the service operator submits claims, so a secret seen in a pending transaction
/// cannot be front-run by someone else. Depositors can take back unclaimed cards at any time.
/// @dev Depositors must approve this contract on the NFT (e.g. `setApprovalForAll`) first.
contract CardEscrow is IERC721Receiver, ReentrancyGuardTransient {
    /// @notice Largest number of tokens accepted by one `deposit` or `cancel` call.
    uint256 public constant MAX_BATCH_SIZE = 100;

    struct Deposit {
        address depositor;
        bytes32 claimHash;
    }

    /// @notice The only account allowed to call `claim`.
    address public immutable operator;

    mapping(address nft => mapping(uint256 tokenId => Deposit)) private _deposits;

    /// @notice `tokenId` of `nft` is now held in escrow under `claimHash`.
    event Deposited(address indexed nft, uint256 indexed tokenId, address indexed depositor, bytes32 claimHash);
    /// @notice `tokenId` of `nft` could not be deposited (zero claim hash, already deposited, or transfer failed).
    event DepositFailed(address indexed nft, uint256 indexed tokenId);
    /// @notice `tokenId` of `nft` was released to `to` against its claim secret.
    event Claimed(address indexed nft, uint256 indexed tokenId, address indexed to);
    /// @notice `tokenId` of `nft` was returned to its depositor.
    event Canceled(address indexed nft, uint256 indexed tokenId, address indexed depositor);
    /// @notice `tokenId` of `nft` could not be returned (not deposited by the caller, or transfer failed).
    event CancelFailed(address indexed nft, uint256 indexed tokenId);

    /// @notice `tokenIds` and `claimHashes` have different lengths.
    error LengthMismatch(uint256 tokenCount, uint256 claimHashCount);
    /// @notice More than `MAX_BATCH_SIZE` tokens in one call.
    error BatchTooLarge(uint256 size, uint256 maxSize);
    /// @notice The caller is not the operator.
    error NotOperator(address caller);
    /// @notice `nft` has no code, so no token of it can be deposited.
    error NotAContract(address nft);
    /// @notice Zero address passed where an account is required.
    error ZeroAddress();
    /// @notice `tokenId` of `nft` is not in escrow.
    error NotDeposited(address nft, uint256 tokenId);
    /// @notice The secret does not hash to the deposit's claim hash.
    error InvalidSecret();

    /// @param operator_ The service operator account, the only one allowed to submit claims.
    constructor(address operator_) {
        if (operator_ == address(0)) revert ZeroAddress();
        operator = operator_;
    }

    /// @notice Moves the caller's `tokenIds` of `nft` into escrow, each under the matching claim hash.
    /// A token that cannot be deposited is skipped with a `DepositFailed` event instead of
    /// reverting the whole batch.
    /// @param nft ERC-721 contract of the tokens.
    /// @param tokenIds Tokens owned by the caller; this contract must be approved to move them.
    /// @param claimHashes `keccak256(abi.encodePacked(secret))` per token; must be non-zero.
    /// @return failCount Number of tokens that were not deposited.
    function deposit(
        address nft,
        uint256[] calldata tokenIds,
        bytes32[] calldata claimHashes
    ) external nonReentrant returns (uint256 failCount) {
        uint256 count = tokenIds.length;
        if (count != claimHashes.length) revert LengthMismatch(count, claimHashes.length);
        if (count > MAX_BATCH_SIZE) revert BatchTooLarge(count, MAX_BATCH_SIZE);
        // A call to an address without code reverts outside try/catch; fail clearly instead.
        if (nft.code.length == 0) revert NotAContract(nft);

        for (uint256 i; i < count; ++i) {
            uint256 tokenId = tokenIds[i];
            bytes32 claimHash = claimHashes[i];
            Deposit storage record = _deposits[nft][tokenId];

            bool deposited;
            if (claimHash != bytes32(0) && record.depositor == address(0)) {
                try IERC721(nft).transferFrom(msg.sender, address(this), tokenId) {
                    record.depositor = msg.sender;
                    record.claimHash = claimHash;
                    deposited = true;
                } catch {}
            }

            if (deposited) {
                emit Deposited(nft, tokenId, msg.sender, claimHash);
            } else {
                emit DepositFailed(nft, tokenId);
                ++failCount;
            }
        }
    }

    /// @notice Releases a deposited token to `to`. Only the operator may call this.
    /// @param nft ERC-721 contract of the token.
    /// @param tokenId Deposited token.
    /// @param secret Preimage of the deposit's claim hash.
    /// @param to Recipient of the token.
    function claim(address nft, uint256 tokenId, bytes32 secret, address to) external nonReentrant {
        if (msg.sender != operator) revert NotOperator(msg.sender);
        if (to == address(0)) revert ZeroAddress();

        Deposit storage record = _deposits[nft][tokenId];
        if (record.depositor == address(0)) revert NotDeposited(nft, tokenId);
        if (keccak256(abi.encodePacked(secret)) != record.claimHash) revert InvalidSecret();

        delete _deposits[nft][tokenId];
        IERC721(nft).transferFrom(address(this), to, tokenId);
        emit Claimed(nft, tokenId, to);
    }

    /// @notice Returns the caller's deposited `tokenIds` of `nft` to the caller.
    /// Tokens not in escrow or deposited by someone else are skipped with a `CancelFailed` event.
    /// @param nft ERC-721 contract of the tokens.
    /// @param tokenIds Tokens the caller deposited.
    /// @return failCount Number of tokens that were not returned.
    function cancel(address nft, uint256[] calldata tokenIds) external nonReentrant returns (uint256 failCount) {
        uint256 count = tokenIds.length;
        if (count > MAX_BATCH_SIZE) revert BatchTooLarge(count, MAX_BATCH_SIZE);

        for (uint256 i; i < count; ++i) {
            uint256 tokenId = tokenIds[i];
            Deposit storage record = _deposits[nft][tokenId];

            bool returned;
            if (record.depositor == msg.sender) {
                try IERC721(nft).transferFrom(address(this), msg.sender, tokenId) {
                    delete _deposits[nft][tokenId];
                    returned = true;
                } catch {}
            }

            if (returned) {
                emit Canceled(nft, tokenId, msg.sender);
            } else {
                emit CancelFailed(nft, tokenId);
                ++failCount;
            }
        }
    }

    /// @notice The deposit of `tokenId` of `nft`; both values are zero if it is not in escrow.
    function depositOf(address nft, uint256 tokenId) external view returns (address depositor, bytes32 claimHash) {
        Deposit storage record = _deposits[nft][tokenId];
        return (record.depositor, record.claimHash);
    }

    /// @notice Accepts ERC-721 safe transfers.
    /// @dev Deposits use `transferFrom` and do not go through this hook; a token sent here with
    /// `safeTransferFrom` outside `deposit` has no depositor and cannot be claimed or canceled.
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return IERC721Receiver.onERC721Received.selector;
    }
}
