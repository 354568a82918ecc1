// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// A stablecoin stand-in with EIP-2612 `permit` and no EIP-3009, as Sky's USDS: one signature of its owner lets a
/// spender pull it, so payments in it need neither an approval transaction nor Permit2. OpenZeppelin's ERC20Permit.
contract PermitToken is ERC20Permit {
    address public immutable owner;
    uint8 private immutable tokenDecimals;

    constructor(string memory tokenName, string memory tokenSymbol, uint8 decimals_)
        ERC20(tokenName, tokenSymbol)
        ERC20Permit(tokenName)
    {
        owner = msg.sender;
        tokenDecimals = decimals_;
    }

    function decimals() public view override returns (uint8) {
        return tokenDecimals;
    }

    function mint(address to, uint256 amount) external {
        require(msg.sender == owner, "PermitToken: caller is not the owner");
        _mint(to, amount);
    }
}
