//! Spark's `aes_encrypt` / `aes_decrypt` / `try_aes_decrypt`: AES with a
//! 16, 24 or 32 byte key in GCM (the default; the 12-byte IV first and the
//! tag last, as Spark writes them), CBC (16-byte IV first, PKCS#7) or ECB
//! (PKCS#7) mode. Without an IV, encryption draws a random one.

use std::sync::Arc;

use aes::cipher::block_padding::Pkcs7;
use aes::cipher::{BlockDecryptMut, BlockEncryptMut, KeyInit, KeyIvInit};
use aes_gcm::aead::{Aead, Payload};
use arrow::array::{Array, ArrayRef, AsArray, BinaryBuilder};
use arrow::compute::cast;
use arrow::datatypes::DataType;
use datafusion::error::{DataFusionError, Result as DFResult};
use datafusion::logical_expr::ScalarUDF;

use super::udfs::kernel_udf;
use crate::error::kernel_error as error;

pub(super) fn all() -> Vec<ScalarUDF> {
    vec![
        kernel_udf("aes_encrypt", DataType::Binary, |a| run(a, true, false)),
        kernel_udf("aes_decrypt", DataType::Binary, |a| run(a, false, false)),
        kernel_udf("try_aes_decrypt", DataType::Binary, |a| run(a, false, true)),
    ]
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Gcm,
    Cbc,
    Ecb,
}

fn mode_of(mode: &str, padding: &str) -> DFResult<Mode> {
    let padding = padding.to_ascii_uppercase();
    match (mode.to_ascii_uppercase().as_str(), padding.as_str()) {
        ("GCM", "DEFAULT" | "NONE") => Ok(Mode::Gcm),
        ("CBC", "DEFAULT" | "PKCS") => Ok(Mode::Cbc),
        ("ECB", "DEFAULT" | "PKCS") => Ok(Mode::Ecb),
        (m, p) => Err(error(
            "UNSUPPORTED_FEATURE.AES_MODE",
            format!("AES-{m} with the padding {p} is not supported; GCM (NONE), CBC (PKCS) and ECB (PKCS) are"),
        )),
    }
}

fn random_bytes(n: usize) -> Vec<u8> {
    use std::hash::{BuildHasher, Hasher};
    // std's per-process random hasher keys, mixed with the time: not for
    // secrets beyond Spark's own use of a random IV
    (0..n)
        .map(|i| {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            h.write_u128(
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_nanos()),
            );
            h.finish() as u8
        })
        .collect()
}

macro_rules! with_key {
    ($key:expr, $cipher:ident => $body:expr) => {
        match $key.len() {
            16 => {
                type $cipher = aes::Aes128;
                $body
            }
            24 => {
                type $cipher = aes::Aes192;
                $body
            }
            32 => {
                type $cipher = aes::Aes256;
                $body
            }
            n => Err(error(
                "INVALID_PARAMETER_VALUE.AES_KEY_LENGTH",
                format!("the key must be 16, 24 or 32 bytes, not {n}"),
            )),
        }
    };
}

fn gcm<C>(key: &[u8]) -> aes_gcm::AesGcm<C, aes_gcm::aead::consts::U12>
where
    C: aes::cipher::BlockCipher
        + aes::cipher::BlockSizeUser<BlockSize = aes::cipher::consts::U16>
        + aes::cipher::BlockEncrypt
        + KeyInit,
{
    aes_gcm::AesGcm::<C, aes_gcm::aead::consts::U12>::new_from_slice(key)
        .expect("the key length was checked")
}

fn encrypt(
    mode: Mode,
    key: &[u8],
    input: &[u8],
    iv: Option<&[u8]>,
    aad: &[u8],
) -> DFResult<Vec<u8>> {
    with_key!(key, C => match mode {
        Mode::Gcm => {
            let iv = iv.map_or_else(|| random_bytes(12), <[u8]>::to_vec);
            if iv.len() != 12 {
                return Err(error("INVALID_PARAMETER_VALUE.AES_IV_LENGTH", "GCM takes a 12-byte IV"));
            }
            let sealed = gcm::<C>(key)
                .encrypt(aes_gcm::Nonce::from_slice(&iv), Payload { msg: input, aad })
                .map_err(|e| error("INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR", e))?;
            Ok([iv, sealed].concat())
        }
        Mode::Cbc => {
            let iv = iv.map_or_else(|| random_bytes(16), <[u8]>::to_vec);
            if iv.len() != 16 {
                return Err(error("INVALID_PARAMETER_VALUE.AES_IV_LENGTH", "CBC takes a 16-byte IV"));
            }
            let sealed = cbc::Encryptor::<C>::new(key.into(), iv.as_slice().into())
                .encrypt_padded_vec_mut::<Pkcs7>(input);
            Ok([iv, sealed].concat())
        }
        Mode::Ecb => Ok(ecb::Encryptor::<C>::new(key.into()).encrypt_padded_vec_mut::<Pkcs7>(input)),
    })
}

fn decrypt(mode: Mode, key: &[u8], input: &[u8], aad: &[u8]) -> DFResult<Vec<u8>> {
    let failed = || {
        error(
            "INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR",
            "the input does not decrypt with this key and mode",
        )
    };
    with_key!(key, C => match mode {
        Mode::Gcm => {
            if input.len() < 12 {
                return Err(failed());
            }
            let (iv, sealed) = input.split_at(12);
            gcm::<C>(key)
                .decrypt(aes_gcm::Nonce::from_slice(iv), Payload { msg: sealed, aad })
                .map_err(|_| failed())
        }
        Mode::Cbc => {
            if input.len() < 16 {
                return Err(failed());
            }
            let (iv, sealed) = input.split_at(16);
            cbc::Decryptor::<C>::new(key.into(), iv.into())
                .decrypt_padded_vec_mut::<Pkcs7>(sealed)
                .map_err(|_| failed())
        }
        Mode::Ecb => ecb::Decryptor::<C>::new(key.into())
            .decrypt_padded_vec_mut::<Pkcs7>(input)
            .map_err(|_| failed()),
    })
}

/// `aes_encrypt(input, key[, mode, padding, iv, aad])` /
/// `aes_decrypt(input, key[, mode, padding, aad])`.
fn run(args: &[ArrayRef], encrypting: bool, lenient: bool) -> DFResult<ArrayRef> {
    if args.len() < 2 {
        return Err(DataFusionError::Plan(
            "[WRONG_NUM_ARGS] aes takes (input, key, ...)".into(),
        ));
    }
    let binary = |i: usize| -> DFResult<Option<ArrayRef>> {
        args.get(i)
            .map(|a| cast(a, &DataType::Binary))
            .transpose()
            .map_err(Into::into)
    };
    let text = |i: usize| -> DFResult<Option<ArrayRef>> {
        args.get(i)
            .map(|a| cast(a, &DataType::Utf8))
            .transpose()
            .map_err(Into::into)
    };
    let (input, key) = (
        binary(0)?.unwrap_or_else(|| Arc::clone(&args[0])),
        binary(1)?.unwrap_or_else(|| Arc::clone(&args[1])),
    );
    let (mode, padding) = (text(2)?, text(3)?);
    let (iv, aad) = if encrypting {
        (binary(4)?, binary(5)?)
    } else {
        (None, binary(4)?)
    };
    let value = |a: &Option<ArrayRef>, row: usize| -> Option<Vec<u8>> {
        a.as_ref().and_then(|a| {
            let b = a.as_binary::<i32>();
            b.is_valid(row).then(|| b.value(row).to_vec())
        })
    };
    let word = |a: &Option<ArrayRef>, row: usize, default: &str| -> String {
        a.as_ref()
            .and_then(|a| {
                let s = a.as_string::<i32>();
                s.is_valid(row).then(|| s.value(row).to_string())
            })
            .unwrap_or_else(|| default.to_string())
    };
    let mut out = BinaryBuilder::new();
    for row in 0..input.len() {
        let (Some(data), Some(k)) = (
            value(&Some(Arc::clone(&input)), row),
            value(&Some(Arc::clone(&key)), row),
        ) else {
            out.append_null();
            continue;
        };
        let result =
            mode_of(&word(&mode, row, "GCM"), &word(&padding, row, "DEFAULT")).and_then(|m| {
                let aad = value(&aad, row).unwrap_or_default();
                let iv = value(&iv, row).filter(|iv| !iv.is_empty());
                if encrypting {
                    encrypt(m, &k, &data, iv.as_deref(), &aad)
                } else {
                    decrypt(m, &k, &data, &aad)
                }
            });
        match result {
            Ok(bytes) => out.append_value(bytes),
            Err(_) if lenient => out.append_null(),
            Err(e) => return Err(e),
        }
    }
    Ok(Arc::new(out.finish()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcm_with_a_zero_iv_is_sparks_bytes() {
        use base64::Engine;
        let key = b"abcdefghijklmnop12345678ABCDEFGH";
        let sealed = encrypt(
            Mode::Gcm,
            key,
            b"Spark",
            Some(&[0; 12]),
            b"This is an AAD mixed into the input",
        )
        .unwrap();
        assert_eq!(
            base64::engine::general_purpose::STANDARD.encode(&sealed),
            "AAAAAAAAAAAAAAAAQiYi+sTLm7KD9UcZ2nlRdYDe/PX4"
        );
        for mode in [Mode::Gcm, Mode::Cbc, Mode::Ecb] {
            let sealed = encrypt(mode, b"1234567890abcdef", b"Spark SQL", None, b"").unwrap();
            assert_eq!(
                decrypt(mode, b"1234567890abcdef", &sealed, b"").unwrap(),
                b"Spark SQL"
            );
        }
    }
}
