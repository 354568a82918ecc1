// SPDX-License-Identifier: MIT
pragma solidity 0.8.17;

/// A token whose EIP-712 domain is reported only by EIP-5267, with a name other than `name()` (as Agora's AUSD may).
contract ReportedDomainToken {
    function name() external pure returns (string memory) {
        return "Token Name";
    }

    function eip712Domain()
        external
        view
        returns (bytes1, string memory, string memory, uint256, address, bytes32, uint256[] memory)
    {
        return (hex"0f", "Domain Name", "7", block.chainid, address(this), bytes32(0), new uint256[](0));
    }
}

/// A token with `name()` and neither `version()` nor `eip712Domain()` (as Paxos' tokens).
contract VersionlessToken {
    function name() external pure returns (string memory) {
        return "Versionless";
    }
}
