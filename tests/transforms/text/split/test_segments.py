from kcorpus.transforms.text.split.segments import cut_long, glued_units, join_continuations, join_short


def test_a_short_sentence_joins_the_previous_one_of_its_paragraph():
    sentences = ["사람들이 왜 아이를 낳지 않을까요??", "단순합니다.", "애키우기 힘들기 때문입니다."]
    assert join_short(sentences, 10) == ["사람들이 왜 아이를 낳지 않을까요?? 단순합니다.", "애키우기 힘들기 때문입니다."]


def test_short_sentences_that_open_a_paragraph_join_the_next_one():
    sentences = ["안녕하세요.", "끝.", "저는 현직 교사입니다.", "감사합니다."]
    assert join_short(sentences, 10) == ["안녕하세요. 끝. 저는 현직 교사입니다. 감사합니다."]


def test_a_paragraph_under_the_floor_stays_one_line_and_no_floor_changes_nothing():
    assert join_short(["반별인건비지원"], 10) == ["반별인건비지원"]
    assert join_short(["생애.", "끝."], 10) == ["생애. 끝."]
    assert join_short(["짧다.", "짧다."], 0) == ["짧다.", "짧다."]
    assert join_short([], 10) == []


def test_cut_long_prefers_sentence_ends_then_commas_then_clause_endings_then_spaces():
    assert cut_long("가나다라마바사. 아자차카타파하.", 12) == ["가나다라마바사.", "아자차카타파하."]
    assert cut_long("가나다라마 바사, 아자차카 타파하", 12) == ["가나다라마 바사,", "아자차카 타파하"]
    assert cut_long("가나다를 하고 마바사 아자차카", 12) == ["가나다를 하고", "마바사 아자차카"]
    assert cut_long("가나다라 마바사아 자차카타", 12) == ["가나다라 마바사아", "자차카타"]


def test_cut_long_keeps_pieces_long_and_the_last_one_over_the_floor():
    text = "가나다라 마바사, 아자차카 타파하고 " * 30
    pieces = cut_long(text.strip(), 100, 10)
    assert " ".join(pieces) == text.strip()
    assert all(50 <= len(p) <= 100 for p in pieces[:-1]) and 10 <= len(pieces[-1]) <= 100
    # The last cut leaves the floor to the last piece, though a later comma is in reach.
    assert cut_long("가나다라마바사, 아자차카타파, 하", 16, 5) == ["가나다라마바사,", "아자차카타파, 하"]


def test_cut_long_never_cuts_inside_a_word():
    url = "http://example.com/" + "a" * 40
    assert cut_long(f"{url} 가나다 라마바", 20) == [url, "가나다 라마바"]
    assert cut_long("가" * 30, 20) == ["가" * 30]
    assert cut_long("가나다", 0) == ["가나다"] and cut_long("가나다", 3) == ["가나다"]


def test_sentences_cut_where_the_paragraph_had_no_space_join_back_without_one():
    line = "보험 처리는 인지.보고.제출했습니다 그래서 이렇게 씁니다."
    units = ["보험 처리는 인지.", "보고.", "제출했습니다 그래서 이렇게 씁니다."]
    glued = glued_units(line, units)
    assert glued == [False, True, True]
    assert join_short(units, 10, glued) == ["보험 처리는 인지.보고.", "제출했습니다 그래서 이렇게 씁니다."]
    assert join_short(units, 10) == ["보험 처리는 인지. 보고.", "제출했습니다 그래서 이렇게 씁니다."]
    # a unit the splitter rewrote is not found as written: joined by a space
    assert glued_units("가나다. 라마", ["가나다.", "라 마"]) == [False, False]


def test_a_unit_that_starts_with_a_particle_or_ending_joins_the_one_before():
    from kcorpus.transforms.text.split.segments import join_continuations

    line = "정말 아니었는지? 를 꼭 물어보고 싶습니다. 공수처법을 시행 한다.로 공수처를 만든다. 이 법은 좋다."
    units = ["정말 아니었는지?", "를 꼭 물어보고 싶습니다.", "공수처법을 시행 한다.", "로 공수처를 만든다.", "이 법은 좋다."]
    assert join_continuations(units, line) == [
        "정말 아니었는지? 를 꼭 물어보고 싶습니다.",
        "공수처법을 시행 한다.로 공수처를 만든다.",
        "이 법은 좋다.",  # `이` (this) starts sentences: not a particle here
    ]
    assert join_continuations(["(85도833판결)", "에 의거하여 처리한다."]) == ["(85도833판결) 에 의거하여 처리한다."]
    assert join_continuations(units[:1]) == units[:1]


def test_cut_long_never_leaves_a_particle_at_the_start_of_a_piece():
    from kcorpus.transforms.text.split.segments import CONTINUATION_START

    pieces = cut_long("대법원 판결문 전체를 인용하면 (85도833판결) 에 의거하여 처리한다", 30)
    assert pieces == ["대법원 판결문 전체를 인용하면 (85도833판결) 에", "의거하여 처리한다"]
    assert not any(CONTINUATION_START.match(piece) for piece in pieces[1:])


def test_particles_after_a_closed_quotation_or_a_glued_ending_join_back() -> None:
    """Real petitions of `petitions_2019-07` (issue 30 item 2): a unit that starts with `는`, `란`, `의` continues the
    one before; `와`, `이` do only where glued to it as written."""
    paragraph = "국민이 심판한다.”는 헌법 제103조의 취지입니다. “어찌 합니까?”란 여자의 물음에 답했다. 한다.”와 같이 말했다."
    units = ["국민이 심판한다.”", "는 헌법 제103조의 취지입니다.", "“어찌 합니까?”", "란 여자의 물음에 답했다.", "한다.”", "와 같이 말했다."]
    assert join_continuations(units, paragraph) == [
        "국민이 심판한다.”는 헌법 제103조의 취지입니다.",
        "“어찌 합니까?”란 여자의 물음에 답했다.",
        "한다.”와 같이 말했다.",
    ]
    assert join_continuations(["정말 좋다.", "와 진짜 최고다."], "정말 좋다. 와 진짜 최고다.") == ["정말 좋다.", "와 진짜 최고다."]
    bracket = ["제친구 (성조차도 거론안하겠습니다)", "가 학교 치마를 입었다."]
    assert join_continuations(bracket, " ".join(bracket)) == [" ".join(bracket)]
    quoted = ["‘너의 신상을 유포한다.’", "와 ‘나랑 자자’ 등"]
    assert join_continuations(quoted, " ".join(quoted)) == [" ".join(quoted)]


def test_the_name_edo_is_no_particle() -> None:
    """Korean Wikipedia (kowiki `AG/wiki_42`, read 8 of issue 30): `에도 막부` (Edo) starts a sentence; `에도` the particle
    still continues one."""
    text = "그는 다이묘이다. 에도 막부의 관료였다."
    assert join_continuations(["그는 다이묘이다.", "에도 막부의 관료였다."], text) == ["그는 다이묘이다.", "에도 막부의 관료였다."]
    text = "겨울에는 니라야마에 상주했다. 에도 역소에서는 무사시를 담당했다."  # kowiki `AG/wiki_77` (read 12)
    assert join_continuations(["겨울에는 니라야마에 상주했다.", "에도 역소에서는 무사시를 담당했다."], text)[1:] == [
        "에도 역소에서는 무사시를 담당했다."
    ]
    assert join_continuations(["알고 있었음", "에도 불구하고 말했다."]) == ["알고 있었음 에도 불구하고 말했다."]


def test_this_after_a_glued_sentence_end_is_no_particle() -> None:
    """kowiki `AG/wiki_77` (read 12 of issue 30): `이` glued after `…되었다.` is "this", not a subject particle; after a
    question mark it still is one (`…사장?이`)."""
    text = "사본은 세미나에 2년간 대출되었다.이 시기에 칼레는 복제를 감독했다."
    units = ["사본은 세미나에 2년간 대출되었다.", "이 시기에 칼레는 복제를 감독했다."]
    assert join_continuations(units, text) == units
    assert join_continuations(["그 사장?", "이 돈을 가져갔다."], "그 사장?이 돈을 가져갔다.") == ["그 사장?이 돈을 가져갔다."]
