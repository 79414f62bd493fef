"""Chroma's chunking-evaluation scores, transcribed: the oracle of the span measures (tests/test_span_measures.py).

Source: brandonstarxel/chunking_evaluation, ``chunking_evaluation/evaluation_framework/base_evaluation.py``
(commit 23ee965): ``sum_of_ranges``, ``union_ranges``, ``intersect_two_ranges`` and ``difference`` as they
are, and the body of ``BaseEvaluation._scores_from_dataset_and_retrievals`` for one question (its loop over
the question's retrieved chunks, ``metadatas[:k]``), without pandas and Chroma's collections. Ranges are
``(start, end)`` character offsets, ``end`` excluded; a chunk is ``{"start_index", "end_index", "corpus_id"}``
and a reference ``{"start_index", "end_index"}``, as there.
"""
from __future__ import annotations


def sum_of_ranges(ranges):  # noqa: ANN001, ANN201
    return sum(end - start for start, end in ranges)


def union_ranges(ranges):  # noqa: ANN001, ANN201
    # Sort ranges based on the starting index
    sorted_ranges = sorted(ranges, key=lambda x: x[0])

    # Initialize with the first range
    merged_ranges = [sorted_ranges[0]]

    for current_start, current_end in sorted_ranges[1:]:
        last_start, last_end = merged_ranges[-1]

        # Check if the current range overlaps or is contiguous with the last range in the merged list
        if current_start <= last_end:
            # Merge the two ranges
            merged_ranges[-1] = (last_start, max(last_end, current_end))
        else:
            # No overlap, add the current range as new
            merged_ranges.append((current_start, current_end))

    return merged_ranges


def intersect_two_ranges(range1, range2):  # noqa: ANN001, ANN201
    # Unpack the ranges
    start1, end1 = range1
    start2, end2 = range2

    # Calculate the maximum of the starting indices and the minimum of the ending indices
    intersect_start = max(start1, start2)
    intersect_end = min(end1, end2)

    # Check if the intersection is valid (the start is less than or equal to the end)
    if intersect_start <= intersect_end:
        return (intersect_start, intersect_end)
    else:
        return None  # Return an None if there is no intersection


def difference(ranges, target):  # noqa: ANN001, ANN201
    result = []
    target_start, target_end = target

    for start, end in ranges:
        if end < target_start or start > target_end:
            # No overlap
            result.append((start, end))
        elif start < target_start and end > target_end:
            # Target is a subset of this range, split it into two ranges
            result.append((start, target_start))
            result.append((target_end, end))
        elif start < target_start:
            # Overlap at the start
            result.append((start, target_start))
        elif end > target_end:
            # Overlap at the end
            result.append((target_end, end))
        # Else, this range is fully contained by the target, and is thus removed

    return result


def question_scores(references, corpus_id, metadatas):  # noqa: ANN001, ANN201
    """(iou, recall, precision) of one question: ``_scores_from_dataset_and_retrievals``' loop body, with
    ``metadatas`` its retrieved chunks already cut at k."""
    numerator_sets = []
    denominator_chunks_sets = []
    unused_highlights = [(x['start_index'], x['end_index']) for x in references]

    for metadata in metadatas:
        # Unpack chunk start and end indices
        chunk_start, chunk_end, chunk_corpus_id = metadata['start_index'], metadata['end_index'], metadata['corpus_id']

        if chunk_corpus_id != corpus_id:
            continue

        for ref_obj in references:
            ref_start, ref_end = int(ref_obj['start_index']), int(ref_obj['end_index'])

            # Calculate intersection between chunk and reference
            intersection = intersect_two_ranges((chunk_start, chunk_end), (ref_start, ref_end))

            if intersection is not None:
                # Remove intersection from unused highlights
                unused_highlights = difference(unused_highlights, intersection)

                # Add intersection to numerator sets
                numerator_sets = union_ranges([intersection] + numerator_sets)

                # Add chunk to denominator sets
                denominator_chunks_sets = union_ranges([(chunk_start, chunk_end)] + denominator_chunks_sets)

    if numerator_sets:  # noqa: SIM108 (as Chroma writes it)
        numerator_value = sum_of_ranges(numerator_sets)
    else:
        numerator_value = 0

    recall_denominator = sum_of_ranges([(x['start_index'], x['end_index']) for x in references])
    precision_denominator = sum_of_ranges([(x['start_index'], x['end_index']) for x in metadatas])
    iou_denominator = precision_denominator + sum_of_ranges(unused_highlights)

    recall_score = numerator_value / recall_denominator
    precision_score = numerator_value / precision_denominator
    iou_score = numerator_value / iou_denominator
    return iou_score, recall_score, precision_score
