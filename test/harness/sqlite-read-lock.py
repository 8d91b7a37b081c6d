"""Locks a WAL-mode SQLite file against readers, for the stall scenarios of test/bench/admission.ts and test/relay-admission/stall.test.ts.

In WAL mode a write transaction never blocks readers, and `PRAGMA locking_mode=EXCLUSIVE` cannot
be taken while another connection has the file open (every WAL connection keeps a shared lock).
What a WAL reader needs is a shared lock on one of the WAL-index read marks (unix VFS: bytes
120+3 .. 120+7 of the -shm file, WAL_READ_LOCK(0..4)). This process holds all five exclusively
(POSIX fcntl locks, as SQLite's own unix VFS takes them), so every reader in another process
retries inside sqlite3 for ~10 s and then fails with SQLITE_PROTOCOL. Prints `locked` once held;
releases when its stdin closes.
"""
import fcntl
import os
import sys
import time

fd = os.open(sys.argv[1] + '-shm', os.O_RDWR)
# A reader between two statements holds a read mark for a moment: retry for up to 2 s.
for attempt in range(400):
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 5, 123, os.SEEK_SET)
        break
    except OSError:
        if attempt == 399:
            raise
        time.sleep(0.005)
print('locked', flush=True)
sys.stdin.read()
