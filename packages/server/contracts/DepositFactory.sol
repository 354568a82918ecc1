// SPDX-License-Identifier: MIT
pragma solidity 0.8.17;

/// Holds what buyers send to one payment's deposit address. Only the factory that created it can move its funds,
/// and only to the address the factory names (its collector). Its address is fixed by CREATE2 before it exists.
contract DepositForwarder {
    address private immutable factory;

    constructor() {
        factory = msg.sender;
    }

    /// Native coin sent after the forwarder exists is kept until the next sweep.
    receive() external payable {}

    /// Moves this address's whole balance of `token` (the native coin when zero) to `to`.
    function sweep(address token, address payable to) external {
        require(msg.sender == factory, "not factory");
        if (token == address(0)) {
            (bool sent, ) = to.call{value: address(this).balance}("");
            require(sent, "native transfer failed");
            return;
        }
        (bool read, bytes memory balance) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this)));
        require(read && balance.length >= 32, "balanceOf failed");
        uint256 amount = abi.decode(balance, (uint256));
        if (amount == 0) return;
        // transfer(to, amount); tokens that return nothing (USDT on mainnet) count as success.
        (bool ok, bytes memory result) = token.call(abi.encodeWithSelector(0xa9059cbb, to, amount));
        require(ok && (result.length == 0 || abi.decode(result, (bool))), "token transfer failed");
    }
}

/// One per collector, at the same address on every chain (deployed through the deterministic deployment proxy).
/// Each payment's deposit address is the CREATE2 address of a DepositForwarder under a salt from the payment id.
contract DepositFactory {
    address payable public immutable collector;

    constructor(address payable collector_) {
        collector = collector_;
    }

    /// The deposit address for `salt`, whether or not its forwarder exists yet.
    function computeAddress(bytes32 salt) public view returns (address) {
        bytes32 codeHash = keccak256(type(DepositForwarder).creationCode);
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, codeHash)))));
    }

    /// Moves every listed token (zero for the native coin) held at `salt`'s deposit address to the collector,
    /// creating its forwarder first when it does not exist yet.
    function sweep(bytes32 salt, address[] calldata tokens) external {
        require(msg.sender == collector, "not collector");
        address forwarder = computeAddress(salt);
        if (forwarder.code.length == 0) new DepositForwarder{salt: salt}();
        for (uint256 i = 0; i < tokens.length; i++) DepositForwarder(payable(forwarder)).sweep(tokens[i], collector);
    }
}
