# Writes lexicon_data.cpp from data/lexicon.tsv at build time, so editing the lexicon needs
# no reconfigure. Called with -DIN=<tsv> -DTEMPLATE=<lexicon_data.cpp.in> -DOUT=<cpp>.
file(READ ${IN} SKILLRT_LEXICON_TSV)
configure_file(${TEMPLATE} ${OUT} @ONLY)
