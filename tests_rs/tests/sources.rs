//! Sources: offsets, limits and batches.

use std::collections::HashMap;

use sparklet_engine::sources::file::{FileFormat, FileStreamFactory};
use sparklet_engine::sources::memory::{MemoryStream, MemoryStreamFactory};
use sparklet_engine::sources::nexmark::NexmarkFactory;
use sparklet_engine::sources::rate::{RateFactory, RateMicroBatchFactory};
use sparklet_engine::sources::{SourceContext, SourceFactory};

use crate::common::{batch, schema_id_word, TempDir};

fn opts(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn memory_stream_offsets_count_add_data_calls() {
    let stream = std::sync::Arc::new(MemoryStream::new(0, schema_id_word()));
    let mut src = MemoryStreamFactory(std::sync::Arc::clone(&stream))
        .create(&SourceContext::default())
        .unwrap();
    assert_eq!(src.latest_offset().unwrap(), None);
    assert_eq!(
        stream.add_data(vec![batch(&[1, 2], &["a", "b"])]).unwrap(),
        0
    );
    assert_eq!(stream.add_data(vec![batch(&[3], &["c"])]).unwrap(), 1);
    let end = src.latest_offset().unwrap().unwrap();
    assert_eq!(end, serde_json::json!(1));
    let b = src.get_batch(Some(&serde_json::json!(0)), &end).unwrap();
    assert_eq!(b.num_rows, 1);
    let all = src.get_batch(None, &end).unwrap();
    assert_eq!(all.num_rows, 3);
}

#[test]
fn memory_stream_rejects_rows_of_another_schema() {
    let stream = MemoryStream::new(0, schema_id_word());
    let other = arrow::array::RecordBatch::try_from_iter(vec![(
        "x",
        std::sync::Arc::new(arrow::array::Int32Array::from(vec![1])) as arrow::array::ArrayRef,
    )])
    .unwrap();
    let err = stream.add_data(vec![other]).unwrap_err();
    assert!(err.to_string().contains("expects rows of schema"), "{err}");
}

#[test]
fn rate_micro_batch_is_deterministic() {
    let f = RateMicroBatchFactory::new(&opts(&[
        ("rowsperbatch", "5"),
        ("starttimestamp", "1000"),
        ("advancemillisperbatch", "100"),
    ]))
    .unwrap();
    let mut src = f.create(&SourceContext::default()).unwrap();
    let end = src.latest_offset().unwrap().unwrap();
    let b = src.get_batch(None, &end).unwrap();
    assert_eq!(b.num_rows, 5);
    src.commit(&end).unwrap();
    assert_eq!(src.latest_offset().unwrap().unwrap(), serde_json::json!(2));
    let missing = RateMicroBatchFactory::new(&opts(&[])).unwrap_err();
    assert!(missing.to_string().contains("rowsPerBatch"), "{missing}");
}

#[test]
fn clock_paced_sources_say_when_their_next_rows_are_due() {
    use std::time::Duration;
    let offset = |src: &mut Box<dyn sparklet_engine::sources::Source>| {
        src.latest_offset()
            .unwrap()
            .and_then(|o| o.as_u64())
            .unwrap_or(0)
    };
    // Nexmark in real time at 100,000 events/s: an event time is a whole
    // millisecond, so the next events are due within one
    let f = NexmarkFactory::new(&opts(&[
        ("realtime", "true"),
        ("eventspersecond", "100000"),
    ]))
    .unwrap();
    let mut src = f.create(&SourceContext::default()).unwrap();
    let before = offset(&mut src);
    let due = src.next_due().expect("a paced stream has a next event");
    assert!(due <= Duration::from_millis(1), "{due:?}");
    std::thread::sleep(due);
    assert!(
        offset(&mut src) > before,
        "nothing new once the wait was over"
    );
    // an unpaced stream has all its events at once
    let f = NexmarkFactory::new(&opts(&[("numevents", "100")])).unwrap();
    assert_eq!(
        f.create(&SourceContext::default()).unwrap().next_due(),
        None
    );

    // the rate source's offsets are whole seconds: the next is due within one
    let f = RateFactory::new(&opts(&[("rowspersecond", "10")])).unwrap();
    let mut src = f.create(&SourceContext::default()).unwrap();
    let before = offset(&mut src);
    let due = src.next_due().expect("a rate stream has a next second");
    assert!(due <= Duration::from_secs(1), "{due:?}");
    std::thread::sleep(due);
    assert!(
        offset(&mut src) > before,
        "nothing new once the wait was over"
    );
    // availableNow: what exists at the start is all there will be
    src.prepare_for_available_now().unwrap();
    assert_eq!(src.next_due(), None);
}

#[test]
fn file_source_takes_new_files_in_order_with_max_files() {
    let dir = TempDir::new("filesrc");
    dir.write("a.json", "{\"id\": 1, \"word\": \"a\"}\n");
    std::thread::sleep(std::time::Duration::from_millis(15));
    dir.write("b.json", "{\"id\": 2, \"word\": \"b\"}\n");
    dir.write(".hidden.json", "{\"id\": 9}\n");
    dir.write("_SUCCESS", "");
    let path = dir.path().to_str().unwrap();
    let f = FileStreamFactory::new(
        FileFormat::Json,
        path,
        schema_id_word(),
        &opts(&[("maxfilespertrigger", "1")]),
    )
    .unwrap();
    let mut src = f.create(&SourceContext::default()).unwrap();
    let first = src.latest_offset().unwrap().unwrap();
    assert_eq!(first, serde_json::json!({"logOffset": 0}));
    let b = src.get_batch(None, &first).unwrap();
    assert_eq!(b.num_rows, 1);
    src.commit(&first).unwrap();
    let second = src.latest_offset().unwrap().unwrap();
    assert_eq!(second, serde_json::json!({"logOffset": 1}));
    src.commit(&second).unwrap();
    // nothing new: the offset stays
    assert_eq!(src.latest_offset().unwrap().unwrap(), second);
    dir.write("c.json", "{\"id\": 3, \"word\": \"c\"}\n");
    assert_eq!(
        src.latest_offset().unwrap().unwrap(),
        serde_json::json!({"logOffset": 2})
    );
}

#[test]
fn missing_path_is_path_not_found() {
    let err = FileStreamFactory::new(
        FileFormat::Json,
        "/no/such/dir",
        schema_id_word(),
        &opts(&[]),
    )
    .unwrap_err();
    assert_eq!(err.condition(), Some("PATH_NOT_FOUND"));
    assert!(err.to_string().contains("/no/such/dir"));
}
