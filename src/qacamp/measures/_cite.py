"""Citations shared by the measure families."""

C_AT_1 = ("Peñas & Rodrigo 2011, A Simple Measure to Assess Non-response, ACL-HLT 2011")
TREC2002 = ("Voorhees 2003, Evaluating the Evaluation: A Case Study Using the TREC 2002 "
            "Question Answering Track, HLT-NAACL 2003")
TREC8 = "Voorhees & Tice 2000, Building a Question Answering Test Collection, SIGIR 2000"
TREC2003 = "Voorhees 2003, Overview of the TREC 2003 Question Answering Track, TREC 2003"
SERIES = ("Voorhees 2005, Using Question Series to Evaluate Question Answering System "
          "Effectiveness, HLT/EMNLP 2005")
TREC2006 = "Dang, Lin & Kelly 2006, Overview of the TREC 2006 Question Answering Track"
PYRAMID = ("Lin & Demner-Fushman 2006, Will Pyramids Built of Nuggets Topple Over?, "
           "HLT-NAACL 2006; official in TREC 2007 (Dang, Kelly & Lin 2007)")
QA4MRE = ("Peñas et al. 2013, QA4MRE 2011-2013: Overview of Question Answering for "
          "Machine Reading Evaluation, CLEF 2013")
TREC2006_LOCAL = ("Dang, Lin & Kelly 2006, Overview of the TREC 2006 Question Answering Track; "
                  "Dang, Kelly & Lin 2007, Overview of the TREC 2007 Question Answering Track "
                  "(globally vs only locally correct answers)")
TREC2004_OTHER = ("Voorhees 2005 (TREC 2004): F(beta=3), 'nugget recall three times as important "
                  "as nugget precision'; TREC 2003 definition questions used beta = 5")
TREC2007 = ("TREC 2007 QA track guidelines: 'the official scores for the Other questions will "
            "be computed using multiple assessors' judgments'")
PAN2014 = ("Stamatatos et al. 2014, Overview of the Author Identification Task at PAN 2014, "
           "CLEF 2014 Working Notes")
PAN2015 = ("Stamatatos et al. 2015, Overview of the Author Identification Task at PAN 2015, "
           "CLEF 2015 Working Notes")
PAN2020 = ("Kestemont et al. 2020, Overview of the Cross-Domain Authorship Verification Task "
           "at PAN 2020, CLEF 2020 Working Notes")
PAN2021 = ("Kestemont et al. 2021, Overview of the Cross-Domain Authorship Verification Task "
           "at PAN 2021, CLEF 2021 Working Notes")
PAN2022 = ("Stamatatos et al. 2022, Overview of the Authorship Verification Task at PAN 2022, "
           "CLEF 2022 Working Notes")
PAN2023 = ("Stamatatos et al. 2023, Overview of the Authorship Verification Task at PAN 2023, "
           "CLEF 2023 Working Notes")
F05U = ("Bevendorff, Stein, Hagen & Potthast 2019, Generalizing Unmasking for Short Texts, "
        "NAACL-HLT 2019")
BRIER = ("Brier 1950, Verification of Forecasts Expressed in Terms of Probability, "
         "Monthly Weather Review 78(1)")
