//! reducer-kit: reference reducers, validator, checker, generator and runner
//! for chat-history reducers. See `spec/` for the contract.

#![warn(missing_docs)]

pub mod atomic;
pub mod case;
pub mod certify;
pub mod check;
pub mod corpus;
pub mod formats;
pub mod fuzzers;
pub mod generate;
pub mod input;
pub mod json;
pub mod protocol;
pub mod reduce;
pub mod terms;
pub mod validate;
