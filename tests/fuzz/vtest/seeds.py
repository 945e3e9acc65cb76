#!/usr/bin/env python3
"""Writes the committed seed corpus of fuzz_vtest_parser (tests/fuzz/vtest/corpus): a handshake and
a session's resources, syncs and a submission, in the target's input format (byte 0: odd starts
the session first; then vtest messages {length in dwords, command, payload}). Message layouts:
protocol/vtest/vtest_protocol.h. Rerun after changing them: python3 tests/fuzz/vtest/seeds.py"""

import os
import struct

CREATE_RENDERER, PING, PROTOCOL_VERSION, GET_PARAM, GET_CAPSET, CONTEXT_INIT = 8, 10, 11, 15, 16, 17
RESOURCE_UNREF, CREATE_BLOB, SYNC_CREATE, SYNC_UNREF, SYNC_READ, SYNC_WRITE, SYNC_WAIT = 3, 18, 19, 20, 21, 22, 23
SUBMIT = 24
ECHO_CAPSET = 30  # tests/host/renderer/echo_context.h


def msg(command, *dwords, raw=b""):
    payload = struct.pack(f"<{len(dwords)}I", *dwords) + raw
    return struct.pack("<II", len(payload) // 4, command) + payload


def seeds():
    handshake = bytes([0]) + msg(CREATE_RENDERER, raw=b"fuzz") + msg(PING) + msg(PROTOCOL_VERSION, 3)
    handshake += msg(GET_PARAM, 1) + msg(GET_CAPSET, ECHO_CAPSET, 0) + msg(CONTEXT_INIT, ECHO_CAPSET)
    session = bytes([1]) + msg(CREATE_BLOB, 1, 1, 4096, 0, 0, 0) + msg(SYNC_CREATE, 0, 0)
    session += msg(SYNC_WRITE, 1, 5, 0) + msg(SYNC_READ, 1) + msg(SYNC_WAIT, 0, 0, 1, 5, 0)
    # One batch: 2 command dwords at offset 9, one sync entry (sync 1 -> 7) at offset 11.
    batch = struct.pack("<I", 1) + struct.pack("<8I", 0, 9, 2, 11, 1, 0, 0, 0)
    submit = batch + struct.pack("<2I", 0x12345678, 0) + struct.pack("<3I", 1, 7, 0)
    session += msg(SUBMIT, raw=submit) + msg(RESOURCE_UNREF, 1) + msg(SYNC_UNREF, 1)
    return {"handshake": handshake, "session": session}


def main():
    corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
    os.makedirs(corpus, exist_ok=True)
    for name, data in seeds().items():
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
