"""Exports of the store into other tools' formats (`cocopipe export`)."""
