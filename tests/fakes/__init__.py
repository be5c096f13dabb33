"""Loopback stand-ins for the network peers this machine cannot reach, speaking their real wire formats."""
