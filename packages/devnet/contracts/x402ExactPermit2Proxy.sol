// SPDX-License-Identifier: MIT
pragma solidity 0.8.17;

/// The part of Permit2's SignatureTransfer this proxy calls; names as in Permit2's own interface, so the ABI's
/// internal types read as those of x402's proxy.
interface ISignatureTransfer {
    struct TokenPermissions {
        address token;
        uint256 amount;
    }

    struct PermitTransferFrom {
        TokenPermissions permitted;
        uint256 nonce;
        uint256 deadline;
    }

    struct SignatureTransferDetails {
        address to;
        uint256 requestedAmount;
    }

    function permitWitnessTransferFrom(
        PermitTransferFrom calldata permit,
        SignatureTransferDetails calldata transferDetails,
        address owner,
        bytes32 witness,
        string calldata witnessTypeString,
        bytes calldata signature
    ) external;
}

/// EIP-2612's permit, which settleWithPermit uses to approve Permit2 in the same transaction.
interface IERC20Permit {
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;
}

/// paygate's own contract with the ABI of x402's `x402ExactPermit2Proxy`, for the devnet only: x402's `exact` EVM
/// scheme with `assetTransferMethod: "permit2"` has the payer sign a Permit2 `PermitWitnessTransferFrom` whose spender
/// is this proxy and whose witness names the recipient, so whoever relays it can only pay that recipient, that amount,
/// not before `validAfter`. The devnet places the runtime code at x402's canonical address with anvil's setCode: there
/// is no constructor state (Permit2's address is a constant), and the reentrancy flag starts at zero.
contract x402ExactPermit2Proxy {
    struct Witness {
        address to;
        uint256 validAfter;
    }

    struct EIP2612Permit {
        uint256 value;
        uint256 deadline;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    ISignatureTransfer public constant PERMIT2 = ISignatureTransfer(0x000000000022D473030F116dDEE9F6B43aC78BA3);

    /// The tail Permit2 appends to its `PermitWitnessTransferFrom(...,` stub: the witness field, then the referenced
    /// types in EIP-712 order. With it Permit2 hashes the same typed data x402's client signs.
    string public constant WITNESS_TYPE_STRING =
        "Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)";

    bytes32 public constant WITNESS_TYPEHASH = keccak256("Witness(address to,uint256 validAfter)");

    event Settled();
    event SettledWithPermit();

    error InvalidAmount();
    error InvalidDestination();
    error InvalidOwner();
    error InvalidPermit2Address();
    error PaymentTooEarly();
    error Permit2612AmountMismatch();
    error ReentrancyGuardReentrantCall();

    /// Zero when no call is running: the value runtime code starts with.
    uint256 private entered;

    /// A token that calls back (a hook, a malicious token) cannot start another settle inside one.
    modifier nonReentrant() {
        if (entered != 0) revert ReentrancyGuardReentrantCall();
        entered = 1;
        _;
        entered = 0;
    }

    /// Moves exactly `permit.permitted.amount` from `owner` to `witness.to`, as the owner signed it.
    function settle(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        transfer(permit, owner, witness, signature);
        emit Settled();
    }

    /// As settle, after the owner's EIP-2612 permit approves Permit2 for the amount (gas-sponsored approval).
    function settleWithPermit(
        EIP2612Permit calldata permit2612,
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) external nonReentrant {
        if (permit2612.value != permit.permitted.amount) revert Permit2612AmountMismatch();
        // Anyone may send a signed EIP-2612 permit first (front-running it); the approval is then in place and
        // Permit2 itself refuses the transfer if it is not.
        try
            IERC20Permit(permit.permitted.token).permit(
                owner,
                address(PERMIT2),
                permit2612.value,
                permit2612.deadline,
                permit2612.v,
                permit2612.r,
                permit2612.s
            )
        {} catch {}
        transfer(permit, owner, witness, signature);
        emit SettledWithPermit();
    }

    function transfer(
        ISignatureTransfer.PermitTransferFrom calldata permit,
        address owner,
        Witness calldata witness,
        bytes calldata signature
    ) private {
        // A chain without Permit2 would otherwise revert with no reason at all.
        if (address(PERMIT2).code.length == 0) revert InvalidPermit2Address();
        if (owner == address(0)) revert InvalidOwner();
        if (witness.to == address(0)) revert InvalidDestination();
        if (permit.permitted.amount == 0) revert InvalidAmount();
        if (block.timestamp < witness.validAfter) revert PaymentTooEarly();
        PERMIT2.permitWitnessTransferFrom(
            permit,
            ISignatureTransfer.SignatureTransferDetails({to: witness.to, requestedAmount: permit.permitted.amount}),
            owner,
            keccak256(abi.encode(WITNESS_TYPEHASH, witness.to, witness.validAfter)),
            WITNESS_TYPE_STRING,
            signature
        );
    }
}
