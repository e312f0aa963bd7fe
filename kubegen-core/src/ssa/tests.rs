//! Unit tests: the fieldsV1 encoding and the core merge rules.
