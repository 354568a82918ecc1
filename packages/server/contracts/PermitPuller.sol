// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";

/// The spender that buyers' EIP-2612 permits name: one per collector, at the same address on every chain (deployed
/// through the deterministic deployment proxy). `pull` applies a permit and moves the tokens to the collector in one
/// transaction, so a payment never leaves a permit applied without its transfer.
contract PermitPuller {
    using SafeERC20 for IERC20;

    address public immutable collector;

    constructor(address collector_) {
        collector = collector_;
    }

    /// Moves `value` of `token` from `owner` to the collector under the owner's permit of exactly `value` to this
    /// contract. Only the collector may call it, so a permit naming this contract can pay the collector and no one else.
    function pull(
        IERC20Permit token,
        address owner,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external {
        require(msg.sender == collector, "PermitPuller: caller is not the collector");
        // A signed permit is public once broadcast, and anyone may submit it first: the allowance it set is then there
        // all the same, so a failed permit is let through and the transfer decides (IERC20Permit's advice).
        try token.permit(owner, address(this), value, deadline, v, r, s) {} catch {}
        IERC20(address(token)).safeTransferFrom(owner, collector, value);
    }
}
