"""Course and tutorial code that builds its toy data itself: run whole (script mode)."""
from corpus import script_case
from ._util import REPLAY_LINEAR, replay_linear_init

NLP = "graykode/nlp-tutorial"
for _path in ("1-1.NNLM/NNLM.py", "1-2.Word2Vec/Word2Vec-Skipgram(Softmax).py", "2-1.TextCNN/TextCNN.py",
              "3-1.TextRNN/TextRNN.py", "3-2.TextLSTM/TextLSTM.py", "3-3.Bi-LSTM/Bi-LSTM.py",
              "4-2.Seq2Seq(Attention)/Seq2Seq(Attention).py", "4-3.Bi-LSTM(Attention)/Bi-LSTM(Attention).py",
              "5-1.Transformer/Transformer.py", "5-1.Transformer/Transformer(Greedy_decoder).py"):
    script_case("nlp-tutorial/" + _path.split("/")[1][:-3], NLP, _path)
script_case("nlp-tutorial/BERT", NLP, "5-2.BERT/BERT.py", deviations=[REPLAY_LINEAR], setup=replay_linear_init)
script_case("nlp-tutorial/Seq2Seq", NLP, "4-1.Seq2Seq/Seq2Seq.py", after_loop=False)
